import { JSON_BODY, RUN, STORE, TRANSPORT, type Endpoint } from './endpoint.ts';
import { listCompaniesQuery, listCompaniesResponse } from '../../tenancy/companies/schemas.ts';
import { createEndUserBody, createEndUserResponse } from '../../tenancy/end-users/schemas.ts';
import { actionEnvelope, runInstallationActionBody, runPathParameters } from '../installations/run-schemas.ts';
import { listMembersResponse } from '../members/schemas.ts';
import { endUserIdParameter, endUserTokenResponse } from '../end-user-tokens/schemas.ts';

/** One endpoint of the v1 surface, described from the schemas its handler validates and answers with. */
export type V1Endpoint = Endpoint;

export const V1_ENDPOINTS: V1Endpoint[] = [
  {
    method: 'get',
    path: '/v1/users',
    operationId: 'listUsers',
    tag: 'Users',
    summary: 'List users',
    description: 'Every member of the API key\'s company at once: no parameters, no filters, no pagination. A query parameter is 400 VALIDATION_ERROR naming it (a `limit` is refused, not ignored).',
    security: 'apiKey',
    response: { description: 'The members.', schema: listMembersResponse },
    errorCodes: [...TRANSPORT, 'VALIDATION_ERROR', 'UNAUTHORIZED', ...STORE],
  },
  {
    method: 'post',
    path: '/v1/users',
    operationId: 'createEndUser',
    tag: 'Users',
    summary: 'Create an end user',
    description:
      'Creates an embedded end user; call it before opening an embedded session for someone. Idempotent by externalId: ' +
      'when the company already has an end user with this externalId, that end user\'s userId is returned (200) and nothing is changed or created.',
    security: 'apiKey',
    body: createEndUserBody,
    response: { description: 'The userId of the new (or existing) end user.', schema: createEndUserResponse },
    errorCodes: [...TRANSPORT, ...JSON_BODY, 'UNAUTHORIZED', ...STORE],
  },
  {
    method: 'get',
    path: '/v1/users/{userId}/token',
    operationId: 'getEndUserToken',
    tag: 'Users',
    summary: 'Get an end user token',
    description:
      'A short-lived JWT for the end user\'s embedded session; call it from your backend and hand the token to the client SDK. ' +
      'Answered without the success wrapper. An unknown end user, or one of another company, is 404.',
    security: 'apiKey',
    pathParameters: { userId: endUserIdParameter },
    response: { description: 'The token.', schema: endUserTokenResponse },
    errorCodes: [...TRANSPORT, 'VALIDATION_ERROR', 'UNAUTHORIZED', 'NOT_FOUND', ...STORE],
  },
  {
    method: 'post',
    path: '/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run',
    operationId: 'runInstallationAction',
    tag: 'Installations',
    summary: 'Run an app action',
    description: 'Runs one action of an app with the credentials of an installation of the token\'s end user. The result is the common envelope.',
    security: 'endUserToken',
    pathParameters: runPathParameters,
    body: runInstallationActionBody,
    response: { description: 'The action result in the common envelope; when the app call failed (success false), meta.appError is the app\'s own error.', schema: actionEnvelope },
    errorCodes: [
      ...TRANSPORT,
      ...JSON_BODY,
      'UNAUTHORIZED',
      'FORBIDDEN',
      'APP_NOT_FOUND',
      'APP_VERSION_NOT_FOUND',
      'ACTION_NOT_FOUND',
      ...RUN,
      ...STORE,
    ],
    envelopeStatuses: {
      '429': 'The app rate-limited the call and the API\'s retry policy gave up (every attempt used, a wait past its cap or the run\'s budget, or a limit not worth retrying such as a daily quota): the envelope, success false, meta.tooManyRequests true, meta.appError the app\'s last answer.',
      '502': 'The response mapping failed or hit a guardrail: the envelope, success false, meta.error.code MAPPING_ERROR (and no meta.appError: the app\'s verdict is unknown).',
    },
  },
  {
    method: 'get',
    path: '/v1/companies',
    operationId: 'listCompanies',
    tag: 'Companies',
    summary: 'List companies',
    description:
      'The companies the API key\'s owner is a member of: profile, plan and member count, with field selection, sorting, paging and an RSQL filter. ' +
      'Any other query parameter is 400 VALIDATION_ERROR naming it (a misspelt limit is refused, not ignored).',
    security: 'apiKey',
    query: listCompaniesQuery,
    response: { description: 'One page of companies and the pagination meta.', schema: listCompaniesResponse },
    errorCodes: [...TRANSPORT, 'VALIDATION_ERROR', 'UNAUTHORIZED', ...STORE],
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'Get the OpenAPI document',
    description: 'This document: the OpenAPI 3.1 description of the v1 surface. No authentication.',
    security: null,
    response: { description: 'The OpenAPI 3.1 document.', schema: { type: 'object', additionalProperties: true } },
    // The specification: this operation declares only its 200 (a malformed or slow request fails before any route, as on every path).
    errorCodes: [],
    // So a query string is ignored, not refused (a tool's cache-busting ?v=…), which would be a 400 the document does not declare.
    unknownQuery: 'ignored',
  },
];
