/**
 * A stub of the `obsidian` module for unit tests (vitest aliases "obsidian" here) and for the
 * e2e page (bundled for the browser and handed to main.js as `require("obsidian")`).
 *
 * It implements the slice of the API the plugin uses, with Obsidian's markup and class names so
 * the plugin's styles.css renders as in the app. Members marked "stub-only" are test hooks.
 */
import { installDomHelpers } from "./obsidian/dom";

installDomHelpers(window as Window & typeof globalThis);

export { App, Plugin, type Command, type PluginManifest } from "./obsidian/app";
export { Component, Events, type EventRef } from "./obsidian/events";
export { setIcon, setTooltip } from "./obsidian/icons";
export { Menu, MenuItem } from "./obsidian/menu";
export { Keymap, Modal, Notice, notices, Scope, SuggestModal, type Instruction, type Modifier } from "./obsidian/modal";
export {
	ButtonComponent,
	DropdownComponent,
	PluginSettingTab,
	Setting,
	SliderComponent,
	TextAreaComponent,
	TextComponent,
	ToggleComponent,
} from "./obsidian/setting";
export { requireApiVersion, setApiVersion } from "./obsidian/version";
export { DataAdapter, FileSystemAdapter, TAbstractFile, TFile, TFolder, Vault } from "./obsidian/vault";
export {
	AUTOSAVE_MS,
	Editor,
	FileView,
	ItemView,
	MarkdownView,
	Tasks,
	View,
	Workspace,
	WorkspaceLeaf,
	parseLinktext,
	type EditorPosition,
	type OpenViewState,
	type PaneType,
	type ViewState,
} from "./obsidian/workspace";

export const Platform = {
	isDesktop: true,
	isDesktopApp: true,
	isMobile: false,
	isMobileApp: false,
	isMacOS: false,
	isWin: false,
	isLinux: true,
};

export interface RequestUrlParam {
	url: string;
	method?: string;
	contentType?: string;
	body?: string | ArrayBuffer;
	headers?: Record<string, string>;
	throw?: boolean;
}

export interface RequestUrlResponse {
	status: number;
	headers: Record<string, string>;
	text: string;
	json: unknown;
	arrayBuffer: ArrayBuffer;
}

type RequestUrlImpl = (request: RequestUrlParam) => Promise<RequestUrlResponse>;
let requestImpl: RequestUrlImpl | null = null;

/** Stub-only: what requestUrl does (tests never reach a network unless they set this). */
export function setRequestUrl(impl: RequestUrlImpl | null): void {
	requestImpl = impl;
}

export function requestUrl(request: RequestUrlParam): Promise<RequestUrlResponse> {
	if (!requestImpl) return Promise.reject(new Error("net::ERR_CONNECTION_REFUSED (stub: no requestUrl set)"));
	return requestImpl(request);
}

export function normalizePath(path: string): string {
	return path.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "") || "/";
}

export function debounce<A extends unknown[]>(fn: (...args: A) => unknown, wait = 0): ((...args: A) => void) & { cancel(): void } {
	let timer: number | null = null;
	const wrapped = (...args: A): void => {
		if (timer !== null) window.clearTimeout(timer);
		timer = window.setTimeout(() => {
			timer = null;
			fn(...args);
		}, wait);
	};
	wrapped.cancel = (): void => {
		if (timer !== null) window.clearTimeout(timer);
		timer = null;
	};
	return wrapped;
}
