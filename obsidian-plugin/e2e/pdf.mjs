// A small PDF written byte by byte (as tests/pdf_fixtures.py does for the sidecar's tests): one
// page per list of lines, 11pt Helvetica, uncompressed, with a correct cross-reference table.
const esc = (s) => s.replace(/\\/g, "\\\\").replace(/\(/g, "\\(").replace(/\)/g, "\\)");

/** The bytes of a PDF with one page per entry of `pages` (each a list of text lines). */
export function buildPdf(pages) {
	const n = pages.length;
	const objs = [
		"<< /Type /Catalog /Pages 2 0 R >>",
		`<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + 2 * i} 0 R`).join(" ")}] /Count ${n} >>`,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	];
	pages.forEach((lines, i) => {
		objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`);
		const stream = lines.map((t, k) => `BT /F1 11 Tf 1 0 0 1 72 ${720 - 14 * k} Tm (${esc(t)}) Tj ET`).join("\n");
		objs.push(`<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`);
	});
	let out = "%PDF-1.7\n";
	const offsets = [];
	objs.forEach((body, k) => {
		offsets.push(Buffer.byteLength(out, "latin1"));
		out += `${k + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xref = Buffer.byteLength(out, "latin1");
	out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
	out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
	out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(out, "latin1");
}
