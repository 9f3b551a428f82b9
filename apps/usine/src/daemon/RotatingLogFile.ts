import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs"
import { dirname } from "node:path"

interface RotatingLogFileOptions {
  readonly file: string
  /** The file is rotated once it would grow past this. */
  readonly maxBytes: number
  /** Rotated files kept: `usine.log.1` (newest) to `usine.log.<keep>`. */
  readonly keep: number
  /** Told once when writing starts failing, and once when it works again. */
  readonly onTrouble: (message: string) => void
}

/**
 * A size-rotated log file written synchronously, so lines keep their order and nothing is lost on exit. A write that
 * fails is dropped: the log must never stop the daemon.
 */
export class RotatingLogFile {
  private size: number | undefined
  private failing = false

  constructor(private readonly options: RotatingLogFileOptions) {}

  write(line: string): void {
    try {
      const bytes = Buffer.byteLength(line) + 1
      if (this.size === undefined) {
        mkdirSync(dirname(this.options.file), { recursive: true })
        this.size = sizeOf(this.options.file)
      }
      if (this.size > 0 && this.size + bytes > this.options.maxBytes) this.rotate()
      appendFileSync(this.options.file, `${line}\n`)
      this.size += bytes
      if (this.failing) this.options.onTrouble(`log file ${this.options.file} is written again`)
      this.failing = false
    } catch (error) {
      this.size = undefined
      if (!this.failing) this.options.onTrouble(`cannot write the log file ${this.options.file}: ${String(error)}`)
      this.failing = true
    }
  }

  private rotate(): void {
    const { file, keep } = this.options
    rmSync(`${file}.${keep}`, { force: true })
    for (let n = keep - 1; n >= 1; n--) {
      if (exists(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`)
    }
    renameSync(file, `${file}.1`)
    this.size = 0
  }
}

const exists = (file: string): boolean => {
  try {
    statSync(file)
    return true
  } catch {
    return false
  }
}

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}
