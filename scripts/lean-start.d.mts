// Types of scripts/lean-start.mjs, for the scripts and tests that import it.
export declare const leanFile: (id: string) => string
export declare function leanStartFiles(root: string): Promise<Record<string, string>>
export declare function writeLeanStart(root: string, bundleDir: string): Promise<void>
