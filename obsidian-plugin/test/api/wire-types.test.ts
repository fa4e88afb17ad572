/**
 * The plugin's wire types against the server's wire schema, without a server: wire-schemas.json
 * is `components.schemas` of `/v1/openapi.json`, generated from the sidecar's
 * `server/schemas.py` (`python -m vaultheat.server.wire_docs`; a sidecar test fails when it is
 * stale). The e2e run makes the same comparison against a live server's document.
 */
import { describe, expect, it } from "vitest";
import { compareWireTypes } from "../../e2e/openapi-check.mjs";
import { SCHEMA_TAGS, WIRE_FIELDS } from "../../src/api/wire-fields";
import generated from "./wire-schemas.json";

const schemas = generated as unknown as {
	components: { schemas: Record<string, { properties?: Record<string, { const?: string }> }> };
};

describe("wire types", () => {
	it("match the server's schema field by field", () => {
		expect(compareWireTypes(schemas, WIRE_FIELDS)).toEqual([]);
	});

	it("carry the schema tag the server sends", () => {
		for (const [name, tag] of Object.entries(SCHEMA_TAGS)) {
			expect(schemas.components.schemas[name]?.properties?.schema?.const, name).toBe(tag);
		}
	});

	it("report a field the plugin does not know", () => {
		const changed = structuredClone(schemas);
		const hop = changed.components.schemas.ExplainHop as { properties: Record<string, unknown> };
		hop.properties.colour = { type: "string" };
		expect(compareWireTypes(changed, WIRE_FIELDS)).toEqual(["ExplainHop.colour: sent by the server, unknown to the plugin"]);
	});
});
