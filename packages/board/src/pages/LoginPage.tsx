import type { FC } from "hono/jsx"
import { CSRF_FIELD } from "../BoardServer/security"

/** The token form; the token never appears on any page, only this empty field. */
export const LoginPage: FC<{ csrf: string; error?: string | undefined }> = ({ csrf, error }) => (
  <form method="post" action="/login" class="stack" data-testid="login">
    <input type="hidden" name={CSRF_FIELD} value={csrf} />
    {error === undefined ? null : <p class="error" data-testid="login-error">{error}</p>}
    <label>Board token <input type="password" name="token" autocomplete="current-password" /></label>
    <button type="submit">Log in</button>
  </form>
)
