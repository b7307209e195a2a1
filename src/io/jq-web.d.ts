// jq-web ships no types; src/io/jq.ts describes the part it uses.
declare module 'jq-web'
