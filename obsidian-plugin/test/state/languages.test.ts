import { describe, expect, it } from "vitest";
import type { VectorSpace } from "../../src/api/types";
import { languageName, languagesWords, spaceSentence } from "../../src/state/languages";

const space = (overrides: Partial<VectorSpace>): VectorSpace => ({
	space: "multilingual",
	query_language: "en",
	chunk_language: "de",
	reason: "the chunk is in de: read in the multilingual space",
	partial: false,
	...overrides,
});

describe("languageName", () => {
	it("names common codes and falls back to the code", () => {
		expect(languageName("de")).toBe("German");
		expect(languageName("ja")).toBe("Japanese");
		expect(languageName("ZH")).toBe("Chinese");
		expect(languageName("und")).toBe("an unknown language");
		expect(languageName("xx")).toBe("xx");
	});
});

describe("spaceSentence", () => {
	it("says a query in another language read everything in the multilingual space", () => {
		expect(spaceSentence(space({ query_language: "de", chunk_language: "en" }))).toBe("Scored in the multilingual space: the query is in German");
	});

	it("says an English query read a passage in another language there", () => {
		expect(spaceSentence(space({ chunk_language: "ja" }))).toBe("Scored in the multilingual space: this passage is in Japanese, the query in English");
		expect(spaceSentence(space({ chunk_language: "qq" }))).toBe("Scored in the multilingual space: this passage is in qq, the query in English");
	});

	it("says why a passage stayed in the English space", () => {
		expect(spaceSentence(space({ space: "english", chunk_language: "en" }))).toBe("Scored in the English space: the query and this passage are in English");
		expect(spaceSentence(space({ space: "english", chunk_language: "ru", partial: true }))).toBe(
			"Scored in the English space: this passage has no multilingual vector yet (still filling)",
		);
	});

	it("adds (still filling) while the multilingual space is partial", () => {
		expect(spaceSentence(space({ query_language: "ru", partial: true }))).toBe("Scored in the multilingual space: the query is in Russian (still filling)");
	});
});

describe("languagesWords", () => {
	it("lists passages per language, most first", () => {
		expect(languagesWords({ de: 12, en: 1234 })).toBe("English 1,234 · German 12");
	});

	it("counts the languages past five, names unknown and pending text, leaves out zeros", () => {
		const many = { en: 900, de: 50, fr: 40, es: 30, ru: 20, ja: 10, zh: 5, und: 0, pending: 7 };
		expect(languagesWords(many)).toBe("English 900 · German 50 · French 40 · Spanish 30 · Russian 20 · 2 more · not detected yet 7");
		expect(languagesWords({ en: 3, und: 4 })).toBe("Unknown 4 · English 3");
	});

	it("is empty without counts", () => {
		expect(languagesWords(undefined)).toBe("");
		expect(languagesWords({})).toBe("");
		expect(languagesWords({ en: 0 })).toBe("");
	});
});
