/** "Related notes for selection": the sidebar answers for the selected text until asked back. */
import { afterEach, describe, expect, it } from "vitest";
import { relatedForSelection } from "../src/views/related-view";
import { flush, json, relatedDoc, relatedHit } from "./helpers";
import { goOnline, makeWorld, openNote, text, typeInto, type World } from "./world";

let world: World;
afterEach(() => world?.services.dispose());

describe("related notes for a selection", () => {
	it("asks for the selected text, keeps it while the note is edited, and goes back on request", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/related", () => json(200, relatedDoc("Alpha.md", [relatedHit("Gamma.md")])));
		await goOnline(world);
		const note = await openNote(world, "Alpha.md");
		world.app.workspace.setLayoutReady();
		const value = note.editor.getValue();
		const start = value.indexOf("gardening");
		note.editor.textarea.setSelectionRange(start, start + "gardening and tomatoes".length);
		const view = await relatedForSelection(world.app, note);
		await flush();
		const root = view!.contentEl;
		const last = () => world.transport.bodies("POST /v1/related").at(-1) as { path: string; text?: string; cursor?: number };
		expect(last()).toMatchObject({ path: "Alpha.md", text: "gardening and tomatoes" });
		expect(last().cursor).toBeUndefined();
		expect(text(root.querySelector(".vaultheat-header-label"))).toBe("Related to the selection in");
		expect(text(root.querySelector(".vaultheat-header-title"))).toBe("Alpha");
		const sent = world.transport.bodies("POST /v1/related").length;
		typeInto(note, " more");
		await world.clock.advance(1000);
		expect(world.transport.bodies("POST /v1/related")).toHaveLength(sent);
		[...root.querySelectorAll("button")].find((b) => text(b) === "Whole note")!.click();
		await flush();
		expect(last().text).toBe(note.editor.getValue());
		expect(text(root.querySelector(".vaultheat-header-label"))).toBe("Related to");
	});
});
