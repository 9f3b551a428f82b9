/**
 * Code points a reader does not see but a model reads (ADR 0055): Unicode's format characters (`Cf`: zero-width
 * spaces and joiners, bidirectional controls, the byte order mark, tag characters, musical and hieroglyph format
 * controls, shorthand format controls, ...), every `Default_Ignorable_Code_Point` (variation selectors, fillers,
 * the combining grapheme joiner, ...), and control characters other than tab, line feed and carriage return. The
 * classes come from the engine's Unicode tables, so no list here grows stale.
 */
const INVISIBLE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu
const ONE_INVISIBLE = /^(?![\t\n\r])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]$/u

/** True for one code point that `stripInvisible` removes. */
export const isInvisible = (codePoint: number): boolean =>
  codePoint >= 0 && codePoint <= 0x10ffff && ONE_INVISIBLE.test(String.fromCodePoint(codePoint))

/** Removes invisible characters; lone surrogates go too, since no reader sees one. */
export const stripInvisible = (text: string): string => text.replace(INVISIBLE, "").replace(/\p{Cs}/gu, "")
