import type { FC } from "hono/jsx"
import { CSRF_FIELD } from "../BoardServer/security"

/**
 * With sign-in, the link to GitHub; else the token form, whose token never appears on any page, only this empty
 * field. A refusal says why above either.
 */
export const LoginPage: FC<{ csrf: string; github: boolean; error?: string | undefined }> = ({ csrf, error, github }) =>
  github ? (
    <div class="stack" data-testid="login">
      {error === undefined ? null : <p class="error" data-testid="login-error">{error}</p>}
      <a class="button" href="/auth/github" data-testid="sign-in-github">Sign in with GitHub</a>
    </div>
  ) : (
    <form method="post" action="/login" class="stack" data-testid="login">
      <input type="hidden" name={CSRF_FIELD} value={csrf} />
      {error === undefined ? null : <p class="error" data-testid="login-error">{error}</p>}
      <label>Board token <input type="password" name="token" autocomplete="current-password" /></label>
      <button type="submit">Log in</button>
    </form>
  )
