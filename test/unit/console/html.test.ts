import { describe, expect, it } from "vitest";
import { html } from "../../../api/console/html.ts";
import { safeNext } from "../../../api/console/paths.ts";

describe("html template", () => {
  it("escapes every interpolated string, in text and in attributes", () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p>',
    );
  });

  it("keeps nested templates as they are, joins arrays and drops null, undefined and false", () => {
    const items = ["a<b", "c"].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe(
      "<ul><li>a&lt;b</li><li>c</li></ul>0",
    );
  });
});

describe("where sign-in may send a person back", () => {
  it("accepts the console and the consent page", () => {
    expect(safeNext("/app")).toBe("/app");
    expect(safeNext("/app/w/1/leads?cursor=x")).toBe("/app/w/1/leads?cursor=x");
    expect(safeNext("/oauth/authorize?client_id=x")).toBe("/oauth/authorize?client_id=x");
  });

  it("refuses other sites, other paths and tricks", () => {
    for (const next of [
      "https://evil.example/app",
      "//evil.example/app",
      "/\\evil.example",
      "/app\\..\\admin",
      "/application",
      "/admin/workspaces",
      "/oauth/token",
      "javascript:alert(1)",
      undefined,
      42,
      `/app/${"x".repeat(3000)}`,
    ]) {
      expect(safeNext(next), String(next)).toBeUndefined();
    }
  });
});
