import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"

/** The repository's root. */
export const root = join(import.meta.dirname, "..")

/** Every `.ts`/`.tsx` file under `dir` (declarations and node_modules left out). */
export const typeScriptFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : typeScriptFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })

/** Each workspace package's `folder` (`src`, `test`) that exists, under packages/ and apps/. */
export const packageFolders = (folder: string): ReadonlyArray<string> =>
  ["packages", "apps"].flatMap((base) =>
    readdirSync(join(root, base)).map((dir) => join(root, base, dir, folder)).filter((dir) => {
      try {
        return statSync(dir).isDirectory()
      } catch {
        return false
      }
    })
  )
