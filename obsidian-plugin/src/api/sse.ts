/**
 * Incremental Server-Sent Events parser (the WHATWG framing: `event:`/`data:` lines, a blank
 * line ends an event, `:` lines are comments, CR/LF/CRLF all end a line). Chunks may split
 * anywhere, even inside a CRLF, so the parser keeps the unfinished line between feeds.
 */

export interface SseMessage {
	event: string;
	data: string;
}

export class SseParser {
	private buffer = "";
	private eventName = "";
	private dataLines: string[] = [];
	private pendingCR = false;

	/** Feeds a chunk of text; returns the events it completed. */
	feed(chunk: string): SseMessage[] {
		let text = chunk;
		if (this.pendingCR && text.startsWith("\n")) text = text.slice(1);
		this.pendingCR = false;
		this.buffer += text;
		const out: SseMessage[] = [];
		for (;;) {
			const match = /\r\n|\r|\n/.exec(this.buffer);
			if (!match) break;
			if (match[0] === "\r" && match.index === this.buffer.length - 1) {
				// A trailing CR may be the first half of a CRLF split across chunks.
				this.pendingCR = true;
			}
			const line = this.buffer.slice(0, match.index);
			this.buffer = this.buffer.slice(match.index + match[0].length);
			const message = this.line(line);
			if (message) out.push(message);
		}
		return out;
	}

	private line(line: string): SseMessage | null {
		if (line === "") {
			if (this.dataLines.length === 0) {
				this.eventName = "";
				return null;
			}
			const message = { event: this.eventName || "message", data: this.dataLines.join("\n") };
			this.eventName = "";
			this.dataLines = [];
			return message;
		}
		if (line.startsWith(":")) return null;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? "" : line.slice(colon + 1);
		if (value.startsWith(" ")) value = value.slice(1);
		if (field === "event") this.eventName = value;
		else if (field === "data") this.dataLines.push(value);
		return null;
	}
}
