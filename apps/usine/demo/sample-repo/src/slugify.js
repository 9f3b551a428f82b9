/** Turns a title into a URL slug: its words in lowercase, joined by dashes. */
export const slugify = (title) => title.toLowerCase().split(" ").join("-")
