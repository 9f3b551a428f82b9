/**
 * Characters a reader does not see but a model reads: C0 and C1 controls (tab, line feed and carriage return
 * kept), soft hyphen, joiners and zero-width spaces, bidirectional controls and isolates, invisible operators,
 * fillers, variation selectors, interlinear annotations, the byte order mark, and the tag characters that can spell
 * out a whole hidden text.
 */
const INVISIBLE_CLASS =
  "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5" +
  "\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0" +
  "\\uFFF9-\\uFFFB\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}"

const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, "gu")
const ONE_INVISIBLE = new RegExp(`^[${INVISIBLE_CLASS}]$`, "u")

/** True for one code point that `stripInvisible` removes. */
export const isInvisible = (codePoint: number): boolean =>
  codePoint >= 0 && codePoint <= 0x10ffff && ONE_INVISIBLE.test(String.fromCodePoint(codePoint))

/** Named entities GitHub renders as one of the invisible characters. */
const INVISIBLE_NAMED = new Set([
  "zwj",
  "zwnj",
  "lrm",
  "rlm",
  "shy",
  "ZeroWidthSpace",
  "NegativeVeryThinSpace",
  "NegativeThinSpace",
  "NegativeMediumSpace",
  "NegativeThickSpace",
  "NoBreak",
  "InvisibleTimes",
  "it",
  "InvisibleComma",
  "ic",
  "ApplyFunction",
  "af"
])

const NUMERIC_ENTITY = /&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));?/g
const NAMED_ENTITY = /&([A-Za-z]+);/g

/**
 * Removes the entities that render as invisible characters (`&#8203;`, `&#xE0041;`, `&zwj;`): the page would show
 * nothing where the model reads an instruction. Every other entity is left as written, since it shows.
 */
export const stripInvisibleEntities = (text: string): string =>
  text
    .replace(NUMERIC_ENTITY, (entity, hex: string | undefined, decimal: string | undefined) =>
      isInvisible(hex === undefined ? Number(decimal) : parseInt(hex, 16)) ? "" : entity
    )
    .replace(NAMED_ENTITY, (entity, name: string) => (INVISIBLE_NAMED.has(name) ? "" : entity))

/** Removes invisible and bidirectional-control characters, and the entities that stand for them. */
export const stripInvisible = (text: string): string => stripInvisibleEntities(text).replace(INVISIBLE, "")
