/**
 * GitHub's web origin for its REST root: `https://github.com` for `https://api.github.com`, a GitHub Enterprise
 * server's own origin for its `/api/v3`, and the same origin otherwise (the emulator serves both faces on one port).
 */
export const githubWebUrl = (apiUrl: string): string => {
  const url = new URL(apiUrl)
  if (url.hostname === "api.github.com") return "https://github.com"
  // GitHub Enterprise Cloud with data residency: api.SUBDOMAIN.ghe.com serves SUBDOMAIN.ghe.com.
  if (/^api\.[^.]+\.ghe\.com$/.test(url.hostname)) return `https://${url.hostname.slice(4)}`
  return url.origin
}
