/** An in-memory vault with Obsidian's file classes and events (create/modify/delete/rename). */
import { type EventRef, Events } from "./events";

export abstract class TAbstractFile {
	vault!: Vault;
	path = "";
	name = "";
	parent: TFolder | null = null;
}

export class TFile extends TAbstractFile {
	basename = "";
	extension = "";
	stat = { ctime: 0, mtime: 0, size: 0 };

	/** Stub-only: sets path, name, basename, extension from a vault path. */
	setPath(path: string): void {
		this.path = path;
		this.name = path.slice(path.lastIndexOf("/") + 1);
		const dot = this.name.lastIndexOf(".");
		this.basename = dot > 0 ? this.name.slice(0, dot) : this.name;
		this.extension = dot > 0 ? this.name.slice(dot + 1) : "";
	}
}

export class TFolder extends TAbstractFile {
	children: TAbstractFile[] = [];
	isRoot(): boolean {
		return this.path === "/" || this.path === "";
	}
}

export class DataAdapter {
	/** Stub-only: files outside the vault index (dot folders like .vaultheat/). */
	hidden = new Map<string, string>();
	vault: Vault | null = null;

	async exists(path: string): Promise<boolean> {
		return this.hidden.has(path) || this.folders.has(path) || Boolean(this.vault?.getAbstractFileByPath(path));
	}

	async read(path: string): Promise<string> {
		const hidden = this.hidden.get(path);
		if (hidden !== undefined) return hidden;
		const file = this.vault?.getFileByPath(path);
		if (!file || !this.vault) throw new Error(`ENOENT: ${path}`);
		return this.vault.read(file);
	}

	async write(path: string, data: string): Promise<void> {
		this.replace(path, data, Date.now());
	}

	/** Stub-only mtimes of the hidden files (epoch ms). */
	readonly hiddenMtime = new Map<string, number>();

	/** Stub-only: a file replaced behind Obsidian's back (a sync service), with its new mtime. */
	replace(path: string, data: string, mtime: number): void {
		this.hidden.set(path, data);
		this.hiddenMtime.set(path, mtime);
	}

	/** Stub-only: the folders made with mkdir. */
	readonly folders = new Set<string>();

	async mkdir(path: string): Promise<void> {
		this.folders.add(path);
	}

	async remove(path: string): Promise<void> {
		if (!this.hidden.delete(path)) throw new Error(`ENOENT: ${path}`);
		this.hiddenMtime.delete(path);
	}

	async stat(path: string): Promise<{ type: "file"; ctime: number; mtime: number; size: number } | null> {
		const hidden = this.hidden.get(path);
		if (hidden !== undefined) {
			const mtime = this.hiddenMtime.get(path) ?? 0;
			return { type: "file", ctime: mtime, mtime, size: hidden.length };
		}
		const file = this.vault?.getFileByPath(path);
		return file ? { type: "file", ctime: file.stat.ctime, mtime: file.stat.mtime, size: file.stat.size } : null;
	}

	getName(): string {
		return "stub";
	}
}

export class FileSystemAdapter extends DataAdapter {
	private readonly basePath: string;
	constructor(basePath: string) {
		super();
		this.basePath = basePath;
	}
	getBasePath(): string {
		return this.basePath;
	}
}

export class Vault extends Events {
	readonly adapter: DataAdapter;
	configDir = ".obsidian";
	private readonly contents = new Map<string, string>();
	private readonly files = new Map<string, TFile>();
	private readonly root: TFolder;
	/** Stub-only: writes a change through to real storage before the event fires (e2e page). */
	persist: ((op: { op: "write" | "delete" | "rename"; path: string; data?: string; newPath?: string }) => Promise<void>) | null = null;

	constructor(adapter: DataAdapter = new FileSystemAdapter("/vault")) {
		super();
		this.adapter = adapter;
		adapter.vault = this;
		this.root = new TFolder();
		this.root.vault = this;
		this.root.path = "/";
	}

	override on(name: "create" | "modify" | "delete", callback: (file: TAbstractFile) => unknown, ctx?: unknown): EventRef;
	override on(name: "rename", callback: (file: TAbstractFile, oldPath: string) => unknown, ctx?: unknown): EventRef;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- implementation signature
	override on(name: string, callback: (...args: any[]) => unknown, ctx?: unknown): EventRef {
		return super.on(name, callback, ctx);
	}

	/** Stub-only: adds files without events, as a vault that is already there. */
	seed(files: Record<string, string>): void {
		for (const [path, content] of Object.entries(files)) this.put(path, content);
	}

	getName(): string {
		return "Vault";
	}

	getRoot(): TFolder {
		return this.root;
	}

	getFileByPath(path: string): TFile | null {
		return this.files.get(path) ?? null;
	}

	getAbstractFileByPath(path: string): TAbstractFile | null {
		return this.files.get(path) ?? null;
	}

	getMarkdownFiles(): TFile[] {
		return [...this.files.values()].filter((f) => f.extension === "md");
	}

	getFiles(): TFile[] {
		return [...this.files.values()];
	}

	/** Files and the folders that hold them (folders made up from the paths). */
	getAllLoadedFiles(): TAbstractFile[] {
		const folders = new Map<string, TFolder>();
		for (const path of this.files.keys()) {
			const parts = path.split("/").slice(0, -1);
			for (let i = 1; i <= parts.length; i++) {
				const p = parts.slice(0, i).join("/");
				if (!folders.has(p)) {
					const folder = new TFolder();
					folder.vault = this;
					folder.path = p;
					folder.name = parts[i - 1] ?? p;
					folders.set(p, folder);
				}
			}
		}
		return [this.root, ...folders.values(), ...this.files.values()];
	}

	/** Stub-only values for `getConfig` (Obsidian's own settings, e.g. userIgnoreFilters). */
	config: Record<string, unknown> = {};
	getConfig(key: string): unknown {
		return this.config[key] ?? null;
	}

	async read(file: TFile): Promise<string> {
		return this.contents.get(file.path) ?? "";
	}

	cachedRead(file: TFile): Promise<string> {
		return this.read(file);
	}

	/** Stub-only: the content now, synchronously. */
	contentOf(path: string): string | undefined {
		return this.contents.get(path);
	}

	async create(path: string, data: string): Promise<TFile> {
		if (this.files.has(path)) throw new Error(`File already exists: ${path}`);
		await this.persist?.({ op: "write", path, data });
		const file = this.put(path, data);
		this.trigger("create", file);
		return file;
	}

	async modify(file: TFile, data: string): Promise<void> {
		await this.persist?.({ op: "write", path: file.path, data });
		this.contents.set(file.path, data);
		file.stat = { ...file.stat, mtime: Date.now(), size: data.length };
		this.trigger("modify", file);
	}

	async delete(file: TAbstractFile): Promise<void> {
		await this.persist?.({ op: "delete", path: file.path });
		this.files.delete(file.path);
		this.contents.delete(file.path);
		this.trigger("delete", file);
	}

	async rename(file: TAbstractFile, newPath: string): Promise<void> {
		if (!(file instanceof TFile)) throw new Error("stub vault renames files only");
		const oldPath = file.path;
		await this.persist?.({ op: "rename", path: oldPath, newPath });
		const data = this.contents.get(oldPath) ?? "";
		this.files.delete(oldPath);
		this.contents.delete(oldPath);
		file.setPath(newPath);
		this.files.set(newPath, file);
		this.contents.set(newPath, data);
		this.trigger("rename", file, oldPath);
	}

	private put(path: string, content: string): TFile {
		const file = new TFile();
		file.vault = this;
		file.setPath(path);
		file.parent = this.root;
		file.stat = { ctime: Date.now(), mtime: Date.now(), size: content.length };
		this.files.set(path, file);
		this.contents.set(path, content);
		return file;
	}
}
