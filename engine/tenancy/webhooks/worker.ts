import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../platform/errors/index.ts';
import type { HttpClient } from '../../platform/outbound/index.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../platform/store/index.ts';
import { retryDelayMs } from './backoff.ts';
import { webhookSecret } from './endpoints.ts';
import type { WebhookSettings } from './settings.ts';
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import { pruneHistory } from './history.ts';
import { dropUnsent } from './unsent.ts';
import { redirectError } from './redirect-text.ts';

/** How much longer than one attempt's time limit a claim holds: a worker that died mid-attempt lets the delivery go after it. */
export const LEASE_MARGIN_MS = 5_000;

export interface WebhookWorker {
  /** Looks for due deliveries now (a new event was written). */
  wake(): void;
  /** Stops taking deliveries; attempts in flight are abandoned and left due at once, for the next start (or another gateway). */
  stop(): Promise<void>;
}

/** Reads of due deliveries in one tick, at most: more are read only when one gave deliveries of endpoints at their share. */
const SHARE_READS = 3;

/** The attempts in flight one endpoint may hold: a quarter of WEBHOOK_CONCURRENCY, at least one. */
function endpointShare(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}

/**
 * The delivery worker of this gateway process: every WEBHOOK_POLL_INTERVAL_MS
 * (or when woken) it takes the due pending deliveries, at most
 * WEBHOOK_CONCURRENCY in flight, and at most a quarter of them (endpointShare)
 * for one endpoint: a receiver that hangs until WEBHOOK_TIMEOUT_MS, with many
 * deliveries due, holds its share while other endpoints' (other companies')
 * deliveries go out. Each is claimed with a compare-and-set on
 * its `claims` count that also moves `nextAttemptAt` past the attempt's
 * time limit (the lease): gateways sharing one MongoDB never send the same
 * attempt twice, and a delivery whose gateway died is taken again once its
 * lease ends. Every outcome is written with the same compare-and-set.
 */
export function startWebhookWorker(services: TenancyServices, settings: WebhookSettings = services.config.webhooks, http: HttpClient): WebhookWorker {
  const { store, logger } = services;
  const inFlight = new Set<Promise<void>>();
  /** Attempts in flight per endpoint, each at most `share`: a receiver that hangs holds its share, not every slot. */
  const perEndpoint = new Map<string, number>();
  const share = endpointShare(settings.concurrency);
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let ticking = false;
  let again = false;

  const schedule = (delayMs: number) => {
    if (stopping.signal.aborted) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), delayMs);
    timer.unref();
  };

  const tick = async () => {
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      // Read again while a read gave deliveries of endpoints that had their share already (and room is left).
      for (let read = 0; read < SHARE_READS && !stopping.signal.aborted; read++) {
        const room = settings.concurrency - inFlight.size;
        if (room <= 0) break;
        const full = [...perEndpoint].filter(([, n]) => n >= share).map(([endpointId]) => endpointId);
        const due = await store.webhookDeliveries.find(
          { status: 'pending', nextAttemptAt: { $lte: new Date() }, ...(full.length ? { endpointId: { $nin: full } } : {}) },
          { sort: { nextAttemptAt: 1 }, limit: room },
        );
        let passedOver = 0;
        for (const seen of due) {
          if (stopping.signal.aborted) break;
          if ((perEndpoint.get(seen.endpointId) ?? 0) >= share) {
            passedOver++;
            continue;
          }
          const leaseEnd = new Date(Date.now() + settings.timeoutMs + LEASE_MARGIN_MS);
          const claimed = await store.webhookDeliveries.updateOne({ id: seen.id, status: 'pending', claims: seen.claims }, { $set: { nextAttemptAt: leaseEnd }, $inc: { claims: 1 } });
          if (!claimed) continue;
          perEndpoint.set(seen.endpointId, (perEndpoint.get(seen.endpointId) ?? 0) + 1);
          const running: Promise<void> = attempt(services, http, settings, { ...seen, claims: seen.claims + 1 }, stopping.signal)
            .catch((error: unknown) => logger.error({ err: error, deliveryId: seen.id }, 'webhook delivery: the attempt could not be recorded'))
            .finally(() => {
              inFlight.delete(running);
              const left = (perEndpoint.get(seen.endpointId) ?? 1) - 1;
              if (left > 0) perEndpoint.set(seen.endpointId, left);
              else perEndpoint.delete(seen.endpointId);
              schedule(0);
            });
          inFlight.add(running);
        }
        if (passedOver === 0) break;
      }
    } catch (error) {
      logger.warn({ err: error }, 'webhook delivery worker: could not read the pending deliveries; trying again');
    } finally {
      ticking = false;
      if (again) {
        again = false;
        schedule(0);
      } else {
        schedule(settings.pollIntervalMs);
      }
    }
  };

  schedule(0);
  return {
    wake: () => schedule(0),
    async stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** One attempt of a claimed delivery, and its outcome written. */
async function attempt(services: TenancyServices, http: HttpClient, settings: WebhookSettings, delivery: WebhookDeliveryRecord, stopping: AbortSignal): Promise<void> {
  const { store } = services;
  const endpoint = await store.webhookEndpoints.findOne({ id: delivery.endpointId, companyId: delivery.companyId });
  if (!endpoint || !endpoint.enabled) {
    services.metrics?.webhookAttempts.inc({ outcome: 'not_sent' });
    await finish(services, settings, delivery, { status: 'failed', error: endpoint ? 'not sent: the endpoint is disabled' : 'not sent: the endpoint was deleted', responseStatus: null, durationMs: null, attempted: false });
    return;
  }
  let secret: string;
  try {
    secret = webhookSecret(services, endpoint);
  } catch (error) {
    services.metrics?.webhookAttempts.inc({ outcome: 'not_sent' });
    await finish(services, settings, delivery, { status: 'failed', error: `not sent: ${(error as Error).message}`, responseStatus: null, durationMs: null, attempted: false });
    return;
  }
  // The payload was serialized once, when the event was written; the client serializes the parsed value again,
  // which gives the same text, and that text is what is signed.
  const body = JSON.parse(delivery.payload) as Record<string, never>;
  const timestamp = Math.floor(Date.now() / 1000);
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const started = performance.now();
  let responseStatus: number | null = null;
  let error: string | null = null;
  let location: string | undefined;
  try {
    const response = await http.send({
      method: 'POST',
      url: endpoint.url,
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signatureHeader(secret, timestamp, JSON.stringify(body)),
        [EVENT_ID_HEADER]: delivery.eventId,
        [EVENT_TYPE_HEADER]: delivery.eventType,
      },
      body,
      signal: AbortSignal.any([stopping, timeout]),
    });
    responseStatus = response.status;
    location = response.headers.location;
  } catch (failure) {
    if (stopping.aborted && !timeout.aborted) {
      // The gateway is stopping: this attempt does not count, and the delivery is due at once for the next start.
      await store.webhookDeliveries.updateOne({ id: delivery.id, claims: delivery.claims }, { $set: { nextAttemptAt: new Date() } });
      return;
    }
    error = timeout.aborted ? `no answer within ${settings.timeoutMs} ms (WEBHOOK_TIMEOUT_MS)` : failureText(failure);
  }
  const durationMs = Math.round(performance.now() - started);
  if (responseStatus !== null && responseStatus >= 200 && responseStatus < 300) {
    services.metrics?.webhookAttempts.inc({ outcome: 'delivered' });
    await finish(services, settings, delivery, { status: 'delivered', error: null, responseStatus, durationMs, attempted: true });
  } else if (responseStatus === 410) {
    services.metrics?.webhookAttempts.inc({ outcome: 'gone' });
    // The endpoint first, then this delivery's outcome: whoever reads the delivery as finished ("the endpoint
    // was disabled") reads the endpoint disabled too, and no event is written for it in between.
    await disable(services, settings, endpoint, delivery);
    await finish(services, settings, delivery, { status: 'failed', error: 'answered 410 Gone: the endpoint was disabled', responseStatus, durationMs, attempted: true });
  } else {
    const answered = responseStatus !== null && responseStatus >= 300 && responseStatus < 400 ? redirectError(responseStatus, location, endpoint) : `answered ${responseStatus}`;
    await retryOrGiveUp(services, settings, delivery, { error: error ?? answered, responseStatus, durationMs });
  }
}

function failureText(failure: unknown): string {
  if (failure instanceof GatewayError) return `${failure.code}: ${failure.message}`;
  return failure instanceof Error ? failure.message : String(failure);
}

async function retryOrGiveUp(services: TenancyServices, settings: WebhookSettings, delivery: WebhookDeliveryRecord, outcome: { error: string; responseStatus: number | null; durationMs: number }): Promise<void> {
  const attempts = delivery.attempts + 1;
  const next = new Date(Date.now() + retryDelayMs(attempts, settings));
  // Whichever comes first: the attempts (however short the delays are set) or the window.
  const limit = attempts >= settings.maxAttempts ? 'WEBHOOK_MAX_ATTEMPTS' : next.getTime() > delivery.giveUpAt.getTime() ? 'WEBHOOK_RETRY_WINDOW_MS' : null;
  if (limit) {
    services.metrics?.webhookAttempts.inc({ outcome: 'given_up' });
    services.logger.warn({ deliveryId: delivery.id, endpointId: delivery.endpointId, eventId: delivery.eventId, attempts, limit }, `webhook delivery given up: still failing when ${limit} ran out`);
    await finish(services, settings, delivery, { status: 'failed', ...outcome, error: `${outcome.error}; given up after ${attempts} attempts (${limit})`, attempted: true });
    if (limit === 'WEBHOOK_RETRY_WINDOW_MS') await disableIfFailingThroughout(services, settings, delivery, outcome.error);
    return;
  }
  services.metrics?.webhookAttempts.inc({ outcome: 'retrying' });
  const now = new Date();
  await services.store.webhookDeliveries.updateOne(
    { id: delivery.id, claims: delivery.claims },
    { $set: { attempts, nextAttemptAt: next, lastAttemptAt: now, updatedOn: now, error: outcome.error, responseStatus: outcome.responseStatus, durationMs: outcome.durationMs } },
  );
}

/**
 * A delivery given up because its whole retry window ran out, with nothing delivered to its endpoint since
 * its event: the receiver has failed every attempt for a whole window. The endpoint is disabled (GET
 * /v2/webhooks/{id} says so in `disabledReason`), its pending deliveries are dropped, the metric counts it and
 * the log says it; no event is written for it until the company enables it again. An endpoint that took
 * any delivery meanwhile is failing some payloads, not down, and stays enabled.
 */
async function disableIfFailingThroughout(services: TenancyServices, settings: WebhookSettings, delivery: WebhookDeliveryRecord, lastError: string): Promise<void> {
  const { store } = services;
  const delivered = await store.webhookDeliveries.count({ companyId: delivery.companyId, endpointId: delivery.endpointId, status: 'delivered', finishedOn: { $gte: delivery.createdOn } });
  if (delivered > 0) return;
  const reason = `every delivery failed for WEBHOOK_RETRY_WINDOW_MS (${settings.retryWindowMs} ms) since ${delivery.createdOn.toISOString()}; last: ${lastError}`;
  await disableEndpoint(services, settings, delivery.companyId, delivery.endpointId, reason, 'failing');
}

/**
 * Disables an enabled endpoint (once: a compare-and-set on `enabled`), drops its pending deliveries (all but
 * `attempted`, the one in flight whose own outcome is written next), counts and logs it.
 */
async function disableEndpoint(services: TenancyServices, settings: WebhookSettings, companyId: string, endpointId: string, reason: string, kind: 'gone' | 'failing', attempted?: string): Promise<void> {
  const { store } = services;
  const disabled = await store.webhookEndpoints.updateOne({ id: endpointId, companyId, enabled: true }, { $set: { enabled: false, disabledReason: reason, updatedOn: new Date() } });
  if (!disabled) return;
  services.metrics?.webhookEndpointsDisabled.inc({ reason: kind });
  const pending = (await store.webhookDeliveries.find({ companyId, endpointId, status: 'pending' }, { limit: settings.maxPending + 1 })).filter((d) => d.id !== attempted);
  const dropped = pending.length ? await dropUnsent(services, pending, `not sent: the endpoint was disabled (${reason})`, 'endpoint_disabled') : 0;
  const words = kind === 'gone' ? 'it answered 410 Gone' : 'every delivery failed for a whole WEBHOOK_RETRY_WINDOW_MS';
  services.logger.warn({ event: 'webhook.endpoint.disabled', endpointId, companyId, reason, dropped }, `webhook endpoint disabled: ${words}; PATCH {"enabled": true} sends events again`);
}

async function finish(
  services: TenancyServices,
  settings: WebhookSettings,
  delivery: WebhookDeliveryRecord,
  outcome: { status: 'delivered' | 'failed'; error: string | null; responseStatus: number | null; durationMs: number | null; attempted: boolean },
): Promise<void> {
  const now = new Date();
  const written = await services.store.webhookDeliveries.updateOne(
    { id: delivery.id, claims: delivery.claims },
    {
      $set: {
        status: outcome.status,
        attempts: delivery.attempts + (outcome.attempted ? 1 : 0),
        nextAttemptAt: null,
        ...(outcome.attempted ? { lastAttemptAt: now } : {}),
        updatedOn: now,
        finishedOn: now,
        error: outcome.error,
        responseStatus: outcome.responseStatus,
        durationMs: outcome.durationMs,
      },
    },
  );
  if (written) await pruneHistory(services, delivery.companyId, delivery.endpointId, settings.deliveriesKept);
}

/** A 410 Gone: the receiver says the endpoint is gone for good, so no more events are written for it until it is enabled again. */
async function disable(services: TenancyServices, settings: WebhookSettings, endpoint: WebhookEndpointRecord, delivery: WebhookDeliveryRecord): Promise<void> {
  await disableEndpoint(services, settings, endpoint.companyId, endpoint.id, `answered 410 Gone to event ${delivery.eventId} at ${new Date().toISOString()}`, 'gone', delivery.id);
}
