// Types of scripts/patches.mjs, for the tests that import it.
export declare const HELP_RENDER: {file: RegExp; package: string; module: string; original: string; patched: string}
export declare const UNDICI_LAZY_H2: {file: RegExp; package: string; module: string; original: string; patched: string}
export declare const UNDICI_MAKE_DISPATCHER: {module: string; sha256: string}
export declare const PINNED: string[]
export declare const JQ_OUTPUT_HOOK_IN: string
export declare const CONF_WITHOUT_AJV: {module: string; imports: Record<string, string>; guard: string}
export declare const DYNAMIC_IMPORT_REWRITE: {pattern: RegExp; sites: Record<string, string[]>}
export declare const LITERAL_OR_GLOB: string
export declare const CORE_PLUGIN_MATCH: {file: RegExp; package: string; module: string; original: string; patched: string}
export declare const PLUGIN_ROOT_FIRST_LOOK: {file: RegExp; package: string; module: string; original: string; patched: string}
export declare const ID_ORDER: string
export declare const COMMAND_ID_SORT: {file: RegExp; package: string; module: string; original: string; patched: string}
export declare const LAZY_REQUIRES: Array<{
  file: RegExp
  package: string
  module: string
  original: string
  patched: string
  binding: string
  uses: string[]
}>
export declare const PLATFORM_VIA_IS_WSL: {file: RegExp; package: string; module: string; original: string; patched: string}
export declare const WSL_IS_WSL_REEXPORT: {module: string; line: string}
export declare const DEBUG_WHEN_ASKED: {file: RegExp; package: string; module: string; original: string; patched: string}
