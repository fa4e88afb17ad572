// Compares the plugin's wire types (src/api/wire-fields.ts, complete by construction) with the
// server's OpenAPI document, component by component: a field the server sends that the plugin
// does not know, or one the plugin expects that the server lacks, is reported. Optionality is
// compared too. Used by run-e2e.mjs against the live /v1/openapi.json; runnable alone:
//   node e2e/openapi-check.mjs openapi.json
import { readFileSync } from "node:fs";

/** Fields of the shared contracts ("pending") the server does not send yet: not a failure. */
export function pendingFields(openapi, wireFields) {
	const schemas = openapi?.components?.schemas ?? {};
	const out = [];
	for (const [name, fields] of Object.entries(wireFields)) {
		const props = schemas[name]?.properties ?? {};
		for (const [field, presence] of Object.entries(fields)) {
			if (presence === "pending" && !(field in props)) out.push(`${name}.${field}`);
		}
	}
	return out;
}

export function compareWireTypes(openapi, wireFields) {
	const schemas = openapi?.components?.schemas ?? {};
	const problems = [];
	const resolve = (s) => {
		if (s?.$ref) return schemas[s.$ref.split("/").pop()];
		return s;
	};
	for (const [name, fields] of Object.entries(wireFields)) {
		const schema = resolve(schemas[name]);
		if (!schema) {
			problems.push(`${name}: no such component in the OpenAPI document`);
			continue;
		}
		const props = schema.properties ?? {};
		const required = new Set(schema.required ?? []);
		for (const [field, presence] of Object.entries(fields)) {
			if (!(field in props)) {
				if (presence !== "pending") problems.push(`${name}.${field}: the plugin expects it, the server does not send it`);
			} else if (presence === "required" && !required.has(field)) problems.push(`${name}.${field}: required in the plugin, optional on the server`);
		}
		for (const field of Object.keys(props)) {
			if (!(field in fields)) problems.push(`${name}.${field}: sent by the server, unknown to the plugin`);
		}
	}
	return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const { WIRE_FIELDS } = await import(process.argv[3] ?? "/tmp/wire.mjs");
	const problems = compareWireTypes(JSON.parse(readFileSync(process.argv[2], "utf8")), WIRE_FIELDS);
	for (const p of problems) console.log(p);
	const pending = pendingFields(JSON.parse(readFileSync(process.argv[2], "utf8")), WIRE_FIELDS);
	if (pending.length) console.log(`contract fields not in this server's schema yet: ${pending.join(", ")}`);
	console.log(problems.length === 0 ? "wire types match" : `${problems.length} differences`);
	process.exit(problems.length === 0 ? 0 : 1);
}
