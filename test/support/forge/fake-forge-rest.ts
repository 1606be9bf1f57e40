// What the fake forge's topic routes (fake-forge-issues.ts, fake-forge-reviews.ts, fake-forge-api.ts)
// answer alike, as GitHub's REST API does: a user, a list a page at a time with GitHub's `link`
// header (what Octokit's paginate follows), and the times records are made at.

/** What GitHub answers, as Octokit types it: every field served has GitHub's name and type, and only the fields a client reads are served. */
export type Served<T> = T extends (infer U)[] ? Served<U>[] : T extends object ? { [K in keyof T]?: Served<T[K]> } : T;

/** An answer of the API (fake-forge-api.ts ApiAnswer's shape). */
export type ApiAnswer = { status: number; body?: unknown; headers?: Record<string, string> };

/** GitHub's 404. */
export const notFound = (): ApiAnswer => ({ status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } });

/** Where a topic's routes are served: the repository's page and API, the token's user, and which numbers are pull requests. */
export interface FakeRepoAt {
  web: string;
  api: string;
  tokenUser: string;
  isPull: (n: number) => boolean;
}

/** A user as GitHub shows one: an app's account (`name[bot]`) is a Bot. */
export const fakeUser = (login: string) => ({ login, type: login.endsWith('[bot]') ? 'Bot' : 'User' });

/** GitHub's page size when the request names none, and its largest. */
const PER_PAGE = 30;
const MAX_PER_PAGE = 100;

/** One page of `items` (listed at `url`) as `per_page` and `page` ask, with a `link` to the next page, the query's other parameters kept, while there is one. */
export function pageOf(url: string, query: URLSearchParams, items: readonly unknown[]): ApiAnswer {
  const perPage = Math.min(Number(query.get('per_page')) || PER_PAGE, MAX_PER_PAGE);
  const page = Math.max(Number(query.get('page')) || 1, 1);
  const next = new URLSearchParams(query);
  next.set('per_page', String(perPage));
  next.set('page', String(page + 1));
  const more = page * perPage < items.length;
  return { status: 200, body: items.slice((page - 1) * perPage, page * perPage), headers: more ? { link: `<${url}?${next}>; rel="next"` } : {} };
}

let lastStamp = 0;

/** Now, as the fake stamps what it makes: each stamp later than the one before, so a record's own time can be a `since` that only what came after it passes. */
export function stampNow(): string {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp).toISOString();
}
