/**
 * esbuild writes ASCII (its default charset) except inside regular expression literals and kept comments: one `…`
 * in a regex made all of app.js (1 MB) a two-byte string, which Node decodes from UTF-8 and V8 reads at twice the
 * cost (3 ms of every command; core.js had one from ansis). scripts/bundle.mjs puts each such character as its \u
 * escape, which a regex, a string and a comment read alike (a regex's `.source` shows the escape).
 * test/build/bundle.test.ts checks that the bundle is ASCII, and what this leaves of a text.
 */
export function asciiOnly(text) {
  // A character after an odd run of backslashes is escaped itself (an identity escape): its \u escape takes the place
  // of that last backslash, or the backslash would escape the escape's own.
  return text.replaceAll(
    /(\\*)([^\x00-\x7f])/g,
    (_, slashes, c) => `${slashes.slice(slashes.length % 2)}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
