"""The REST service (docs/http.md describes its behaviour).

``main`` builds the app; ``routes/`` holds one router per resource; ``deps`` the key, scope,
rate-limit, body and quota dependencies in the order the contract checks them; ``middleware``
the request journal, CORS and the JSON 500; ``openapi`` the OpenAPI document; ``compute`` the
pool of worker processes that compute plans.
"""
