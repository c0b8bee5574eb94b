import { cutText } from '../../platform/cut-text.ts';

/** The longest Location a delivery's error quotes: a receiver's header is not kept whole. */
const LOCATION_QUOTED = 200;

/**
 * The error of an attempt answered with a redirect, which deliveries never follow: where it pointed (resolved
 * against the endpoint's URL, cut to LOCATION_QUOTED characters) and what the company can do about it. A
 * receiver that moved (to https, behind a trailing slash) is the usual cause, and "answered 301" alone said neither.
 */
export function redirectError(status: number, location: string | undefined, endpoint: { id: string; url: string }): string {
  const advice = `redirects are not followed; if your receiver moved, PATCH /v2/webhooks/${endpoint.id}`;
  if (!location) return `answered ${status}, a redirect without a Location: ${advice} with its new url`;
  let target: string;
  try {
    target = new URL(location, endpoint.url).href;
  } catch {
    target = location;
  }
  const quoted = target.length > LOCATION_QUOTED ? `${cutText(target, LOCATION_QUOTED)}…` : target;
  return `answered ${status}, a redirect to ${quoted}: ${advice} with the url it points to`;
}
