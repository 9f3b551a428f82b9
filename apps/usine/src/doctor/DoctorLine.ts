/** One line of `usine doctor`: a check that passed, failed (with what to do), or passed with a warning. */
export interface DoctorLine {
  readonly status: "pass" | "fail" | "warn"
  readonly text: string
}

export const pass = (text: string): DoctorLine => ({ status: "pass", text })
export const fail = (text: string): DoctorLine => ({ status: "fail", text })
export const warn = (text: string): DoctorLine => ({ status: "warn", text })

const MARK = { pass: "✓", fail: "✗", warn: "!" } as const

/** The line as printed: `✓ text`, `✗ text`, `! text` for a warning. */
export const formatLine = (line: DoctorLine): string => `${MARK[line.status]} ${line.text}`
