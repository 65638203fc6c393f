// Types of scripts/dist.mjs (plain JavaScript: it runs before anything is compiled).
export declare const ROOT: string;
export declare const SOURCE_DIRS: readonly string[];
export declare const CONFIG_FILES: readonly string[];
export declare const STAMP: string;
export declare function changedSince(root: string, since: number): string | undefined;
export declare function distStaleness(root?: string): string | undefined;
export declare function ensureDist(root?: string, log?: (line: string) => void): Promise<string | undefined>;
