import type { FC } from "hono/jsx"

/** A refused or failed action, for a form post without JavaScript. */
export const ProblemPage: FC<{ message: string; back: string | undefined }> = ({ back, message }) => (
  <>
    <p class="error" data-testid="problem">{message}</p>
    <p><a href={back ?? "/"}>Back</a></p>
  </>
)
