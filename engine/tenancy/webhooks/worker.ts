import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../platform/errors/index.ts';
import type { HttpClient } from '../../platform/outbound/index.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../platform/store/index.ts';
import { retryDelayMs } from './backoff.ts';
import { webhookSecret } from './endpoints.ts';
import type { WebhookSettings } from './settings.ts';
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';

/** How much longer than one attempt's time limit a claim holds: a worker that died mid-attempt lets the delivery go after it. */
export const LEASE_MARGIN_MS = 5_000;

export interface WebhookWorker {
  /** Looks for due deliveries now (a new event was written). */
  wake(): void;
  /** Stops taking deliveries; attempts in flight are abandoned and left due at once, for the next start (or another gateway). */
  stop(): Promise<void>;
}

/**
 * The delivery worker of this gateway process: every WEBHOOK_POLL_INTERVAL_MS
 * (or when woken) it takes the due pending deliveries, at most
 * WEBHOOK_CONCURRENCY in flight. Each is claimed with a compare-and-set on
 * its `claims` count that also moves `nextAttemptAt` past the attempt's
 * time limit (the lease): gateways sharing one MongoDB never send the same
 * attempt twice, and a delivery whose gateway died is taken again once its
 * lease ends. Every outcome is written with the same compare-and-set.
 */
export function startWebhookWorker(services: TenancyServices, settings: WebhookSettings = services.config.webhooks, http: HttpClient): WebhookWorker {
  const { store, logger } = services;
  const inFlight = new Set<Promise<void>>();
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
      const room = settings.concurrency - inFlight.size;
      if (room > 0 && !stopping.signal.aborted) {
        const due = await store.webhookDeliveries.find({ status: 'pending', nextAttemptAt: { $lte: new Date() } }, { sort: { nextAttemptAt: 1 }, limit: room });
        for (const seen of due) {
          if (stopping.signal.aborted) break;
          const leaseEnd = new Date(Date.now() + settings.timeoutMs + LEASE_MARGIN_MS);
          const claimed = await store.webhookDeliveries.updateOne({ id: seen.id, status: 'pending', claims: seen.claims }, { $set: { nextAttemptAt: leaseEnd }, $inc: { claims: 1 } });
          if (!claimed) continue;
          const running: Promise<void> = attempt(services, http, settings, { ...seen, claims: seen.claims + 1 }, stopping.signal)
            .catch((error: unknown) => logger.error({ err: error, deliveryId: seen.id }, 'webhook delivery: the attempt could not be recorded'))
            .finally(() => {
              inFlight.delete(running);
              schedule(0);
            });
          inFlight.add(running);
        }
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
    await disable(services, endpoint, delivery);
    await finish(services, settings, delivery, { status: 'failed', error: 'answered 410 Gone: the endpoint was disabled', responseStatus, durationMs, attempted: true });
  } else {
    await retryOrGiveUp(services, settings, delivery, { error: error ?? `answered ${responseStatus}`, responseStatus, durationMs });
  }
}

function failureText(failure: unknown): string {
  if (failure instanceof GatewayError) return `${failure.code}: ${failure.message}`;
  return failure instanceof Error ? failure.message : String(failure);
}

async function retryOrGiveUp(services: TenancyServices, settings: WebhookSettings, delivery: WebhookDeliveryRecord, outcome: { error: string; responseStatus: number | null; durationMs: number }): Promise<void> {
  const attempts = delivery.attempts + 1;
  const next = new Date(Date.now() + retryDelayMs(attempts, settings));
  if (next.getTime() > delivery.giveUpAt.getTime()) {
    services.metrics?.webhookAttempts.inc({ outcome: 'given_up' });
    services.logger.warn({ deliveryId: delivery.id, endpointId: delivery.endpointId, eventId: delivery.eventId, attempts }, 'webhook delivery given up: still failing when WEBHOOK_RETRY_WINDOW_MS ran out');
    await finish(services, settings, delivery, { status: 'failed', ...outcome, error: `${outcome.error}; given up after ${attempts} attempts (WEBHOOK_RETRY_WINDOW_MS)`, attempted: true });
    return;
  }
  services.metrics?.webhookAttempts.inc({ outcome: 'retrying' });
  const now = new Date();
  await services.store.webhookDeliveries.updateOne(
    { id: delivery.id, claims: delivery.claims },
    { $set: { attempts, nextAttemptAt: next, lastAttemptAt: now, updatedOn: now, error: outcome.error, responseStatus: outcome.responseStatus, durationMs: outcome.durationMs } },
  );
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
  if (written) await prune(services, delivery.companyId, delivery.endpointId, settings.deliveriesKept);
}

/** Keeps the newest WEBHOOK_DELIVERIES_KEPT finished deliveries of the endpoint (pending ones are never dropped). */
async function prune(services: TenancyServices, companyId: string, endpointId: string, kept: number): Promise<void> {
  const old = await services.store.webhookDeliveries.find(
    { companyId, endpointId, status: { $in: ['delivered', 'failed'] } },
    { sort: { createdOn: -1 }, skip: kept, limit: 100 },
  );
  if (old.length) await services.store.webhookDeliveries.deleteMany({ companyId, id: { $in: old.map((d) => d.id) } });
}

/** A 410 Gone: the receiver says the endpoint is gone for good, so no more events are written for it until it is enabled again. */
async function disable(services: TenancyServices, endpoint: WebhookEndpointRecord, delivery: WebhookDeliveryRecord): Promise<void> {
  const now = new Date();
  await services.store.webhookEndpoints.updateOne(
    { id: endpoint.id, companyId: endpoint.companyId },
    { $set: { enabled: false, disabledReason: `answered 410 Gone to event ${delivery.eventId} at ${now.toISOString()}`, updatedOn: now } },
  );
  services.logger.warn({ endpointId: endpoint.id, companyId: endpoint.companyId }, 'webhook endpoint disabled: it answered 410 Gone');
}
