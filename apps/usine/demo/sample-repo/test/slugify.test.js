import assert from "node:assert/strict"
import { test } from "node:test"
import { slugify } from "../src/slugify.js"

test("joins lowercase words with dashes", () => {
  assert.equal(slugify("Release Notes"), "release-notes")
})

test("keeps digits", () => {
  assert.equal(slugify("Top 10 tips"), "top-10-tips")
})
