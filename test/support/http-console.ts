import { csrfOf } from "./console.ts";

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: string;
  location: string | null;
}

/**
 * A browser for the console over real HTTP (fetch against a listening app): keeps cookies, reads
 * each page's CSRF token, follows nothing by itself. `forwardedFor` sets X-Forwarded-For, the
 * client address an app with TRUST_PROXY_HOPS=1 reads (how a test stands for many addresses).
 */
export class HttpConsoleBrowser {
  readonly cookies = new Map<string, string>();
  readonly #baseUrl: string;
  forwardedFor: string | undefined;

  constructor(baseUrl: string, options: { forwardedFor?: string } = {}) {
    this.#baseUrl = baseUrl;
    this.forwardedFor = options.forwardedFor;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async #send(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<HttpAnswer> {
    const response = await fetch(new URL(path, this.#baseUrl), {
      ...init,
      redirect: "manual",
      headers: {
        cookie: this.cookieHeader,
        ...(this.forwardedFor ? { "x-forwarded-for": this.forwardedFor } : {}),
        ...init.headers,
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      location: response.headers.get("location"),
    };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return this.#send(path, { method: "GET", headers });
  }

  post(path: string, fields: Record<string, string>): Promise<HttpAnswer> {
    return this.#send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Posts a form as the page at `formPage` would (its CSRF token included unless given). */
  async submit(formPage: string, action: string, fields: Record<string, string>): Promise<HttpAnswer> {
    const page = await this.get(formPage);
    return this.post(action, { csrf_token: csrfOf(page.body), ...fields });
  }

  /** Signs in through the sign-in form; throws unless it answers the redirect of a success. */
  async signIn(email: string, password: string): Promise<void> {
    const answer = await this.submit("/app/sign-in", "/app/sign-in", { email, password });
    if (answer.status !== 303) throw new Error(`sign-in: ${answer.status} ${answer.body.slice(0, 300)}`);
  }
}
