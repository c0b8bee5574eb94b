/**
 * Examples in the v1 document, by operationId, status and name: real
 * answers of the gateway (the run ones from the test apps of spec/fixtures/run,
 * the app's Date header pinned), each reproduced by
 * spec/http/openapi/v1-statuses.spec.ts and checked equal to what is written here,
 * so they cannot drift.
 */
export const V1_EXAMPLES: Record<string, Record<string, Record<string, unknown>>> = {
  "listUsers": {
    "401": {
      "UNAUTHORIZED": {
        "success": false,
        "error": {
          "code": "UNAUTHORIZED",
          "message": "a valid API key is required: send Authorization: Bearer <API_KEY>"
        }
      }
    }
  },
  "createEndUser": {
    "400": {
      "VALIDATION_ERROR": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "nickname: is not a known field; email: must be a valid email",
          "details": {
            "problems": [
              {
                "field": "nickname",
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
    },
    "415": {
      "UNSUPPORTED_MEDIA_TYPE": {
        "success": false,
        "error": {
          "code": "UNSUPPORTED_MEDIA_TYPE",
          "message": "request bodies must be application/json (got application/x-www-form-urlencoded)"
        }
      }
    }
  },
  "getEndUserToken": {
    "404": {
      "NOT_FOUND": {
        "success": false,
        "error": {
          "code": "NOT_FOUND",
          "message": "no end user eu_missing in your company"
        }
      }
    }
  },
  "listCompanies": {
    "400": {
      "VALIDATION_ERROR": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "limit: must be >= 1",
          "details": {
            "problems": [
              {
                "field": "limit",
                "rule": "minimum",
                "message": "must be >= 1"
              }
            ]
          }
        }
      },
      "UNKNOWN_QUERY_PARAMETER": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "limt: is not a known query parameter",
          "details": {
            "problems": [
              {
                "field": "limt",
                "rule": "additionalProperties",
                "message": "is not a known query parameter"
              }
            ]
          }
        }
      }
    }
  },
  "runInstallationAction": {
    "400": {
      "VALIDATION_ERROR": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "installationId: is required",
          "details": {
            "problems": [
              {
                "field": "installationId",
                "rule": "required",
                "message": "is required"
              }
            ]
          }
        }
      },
      "APP_VERSION_INVALID": {
        "success": false,
        "error": {
          "code": "VALIDATION_ERROR",
          "message": "appVersion: must be published, draft or a version number",
          "details": {
            "problems": [
              {
                "field": "appVersion",
                "rule": "pattern",
                "message": "must be published, draft or a version number"
              }
            ]
          }
        }
      }
    },
    "401": {
      "UNAUTHORIZED": {
        "success": false,
        "error": {
          "code": "UNAUTHORIZED",
          "message": "a valid end-user token is required: send Authorization: Bearer <END_USER_TOKEN> from GET /v1/users/{userId}/token"
        }
      }
    },
    "403": {
      "FORBIDDEN": {
        "success": false,
        "error": {
          "code": "FORBIDDEN",
          "message": "draft versions run only for test end users (isTestUser: true); use published or a version number"
        }
      }
    },
    "404": {
      "NOT_FOUND": {
        "success": false,
        "error": {
          "code": "NOT_FOUND",
          "message": "installation ins_missing does not exist"
        }
      }
    },
    "429": {
      "RATE_LIMITED": {
        "success": false,
        "data": [],
        "meta": {
          "retries": 2,
          "response": {
            "status": 429,
            "headers": {
              "content-type": "application/json",
              "date": "Tue, 24 Nov 2026 02:00:00 GMT",
              "connection": "keep-alive",
              "keep-alive": "timeout=5",
              "transfer-encoding": "chunked"
            },
            "body": {
              "error": "slow down"
            }
          },
          "action": {
            "id": "list-orders",
            "slug": "list-orders",
            "operation": "list",
            "query": {},
            "body": null
          },
          "appError": {
            "status": 429,
            "code": "HTTP_429",
            "message": "Too Many Requests"
          },
          "tooManyRequests": true
        }
      }
    },
    "502": {
      "MAPPING_ERROR": {
        "success": false,
        "data": [],
        "meta": {
          "retries": 0,
          "response": {
            "status": 200,
            "headers": {
              "content-type": "application/json",
              "date": "Tue, 24 Nov 2026 02:00:00 GMT",
              "connection": "keep-alive",
              "keep-alive": "timeout=5",
              "transfer-encoding": "chunked"
            },
            "body": {
              "result": {
                "orders": []
              }
            }
          },
          "action": {
            "id": "broken",
            "slug": "broken",
            "operation": "list",
            "query": {},
            "body": null
          },
          "error": {
            "code": "MAPPING_ERROR",
            "message": "shop/versions/1/actions/broken.yaml:7:39: The right side of the \"+\" operator must evaluate to a number (T2002)",
            "details": {
              "file": "shop/versions/1/actions/broken.yaml",
              "line": 7,
              "column": 39,
              "reason": "evaluation",
              "code": "T2002"
            }
          }
        }
      },
      "UPSTREAM_UNREACHABLE": {
        "success": false,
        "error": {
          "code": "UPSTREAM_UNREACHABLE",
          "message": "127.0.0.1:9 refused the connection",
          "details": {
            "host": "127.0.0.1:9",
            "cause": "ECONNREFUSED"
          }
        }
      }
    }
  }
};
