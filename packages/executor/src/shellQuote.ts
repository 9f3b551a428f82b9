/** Quotes one word for a POSIX shell: single quotes, with embedded single quotes closed, escaped and reopened. */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`

/** Quotes an argv into one command line. */
export const shellCommand = (argv: ReadonlyArray<string>): string => argv.map(shellQuote).join(" ")
