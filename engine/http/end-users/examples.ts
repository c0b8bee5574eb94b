/**
 * Examples of the end-user operations in the v2 document, by operationId,
 * status and name: real answers of the gateway with the random id and the
 * clock pinned (EXAMPLE_END_USER_ID, EXAMPLE_TIME), each reproduced by
 * spec/http/end-users/examples.spec.ts and checked equal to what is written here.
 */
export const EXAMPLE_END_USER_ID = 'eu_5f0c8e2a9d41b7c3e6a0f912';
export const EXAMPLE_TIME = '2026-11-24T08:00:00.000Z';

export const END_USER_EXAMPLES: Record<string, Record<string, Record<string, unknown>>> = {
  "listEndUsers": {
    "200": {
      "page": {
        "success": true,
        "data": [
          {
            "id": "eu_5f0c8e2a9d41b7c3e6a0f912",
            "externalId": "user-42",
            "name": "Ada Lovelace"
          }
        ],
        "meta": {
          "pagination": {
            "totalCount": 1,
            "totalCountExact": true,
            "hasNextPage": false,
            "hasPreviousPage": false
          }
        }
      }
    },
    "400": {
      "VALIDATION_ERROR": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "sort: unknown field \"password\"; fields: id, externalId, name, email, isTestUser, metadata, createdOn, updatedOn",
          "details": {
            "problems": [
              {
                "field": "sort",
                "rule": "enum",
                "message": "unknown field \"password\"; fields: id, externalId, name, email, isTestUser, metadata, createdOn, updatedOn"
              }
            ]
          }
        }
      }
    }
  },
  "getEndUser": {
    "200": {
      "endUser": {
        "success": true,
        "data": {
          "id": "eu_5f0c8e2a9d41b7c3e6a0f912",
          "externalId": "user-42",
          "name": "Ada Lovelace",
          "email": "ada@example.com",
          "isTestUser": false,
          "metadata": {
            "region": "eu"
          },
          "createdOn": "2026-11-24T08:00:00.000Z",
          "updatedOn": "2026-11-24T08:00:00.000Z"
        }
      }
    },
    "404": {
      "NOT_FOUND": {
        "success": false,
        "error": {
          "code": "NOT_FOUND",
          "message": "end user eu_missing does not exist"
        }
      }
    }
  },
  "updateEndUser": {
    "200": {
      "updated": {
        "success": true,
        "data": {
          "id": "eu_5f0c8e2a9d41b7c3e6a0f912",
          "externalId": "user-42",
          "name": "Ada Lovelace",
          "email": "ada@example.com",
          "isTestUser": true,
          "metadata": {
            "region": "us"
          },
          "createdOn": "2026-11-24T08:00:00.000Z",
          "updatedOn": "2026-11-24T08:00:00.000Z"
        }
      }
    },
    "400": {
      "VALIDATION_ERROR": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "externalId: is not a known field; email: must be a valid email",
          "details": {
            "problems": [
              {
                "field": "externalId",
                "rule": "additionalProperties",
                "message": "is not a known field"
              },
              {
                "field": "email",
                "rule": "format",
                "message": "must be a valid email"
              }
            ]
          }
        }
      }
    }
  },
  "deleteEndUser": {
    "200": {
      "deleted": {
        "success": true,
        "data": {
          "id": "eu_5f0c8e2a9d41b7c3e6a0f912",
          "deleted": true,
          "connectionsDeleted": 1,
          "installationsDeleted": 1
        }
      }
    },
    "404": {
      "NOT_FOUND": {
        "success": false,
        "error": {
          "code": "NOT_FOUND",
          "message": "end user eu_missing does not exist"
        }
      }
    }
  }
};
