/** The CLI's argv prefix: the Agent's configured command line when it has one (a specific install), else the binary name. */
export const cliArgv = (command: ReadonlyArray<string> | undefined, binary: string): ReadonlyArray<string> =>
  command !== undefined && command.length > 0 ? command : [binary]
