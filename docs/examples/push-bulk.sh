#!/bin/sh
# Push several items in one request (up to 1,000 by default; 500 is a good batch size).
set -eu
: "${LOCALIQ_URL:=http://127.0.0.1:7410}"

curl -sS --fail-with-body --retry 5 "$LOCALIQ_URL/ingest/bulk" \
  -H "x-api-key: $LOCALIQ_API_KEY" \
  -H 'content-type: application/json' \
  -d '{
    "items": [
      {
        "integrationId": "shop", "knowledgeBaseId": "main", "sourceType": "PRODUCT",
        "externalId": "sku-43",
        "data": { "title": "Wool hat", "content": "Warm merino hat, hand wash only.",
                  "sourceData": { "price": "24.00 EUR" } }
      },
      {
        "integrationId": "shop", "knowledgeBaseId": "main", "sourceType": "PAGE",
        "externalId": "returns",
        "data": { "title": "Returns", "content": "Unworn items can be returned within 30 days.",
                  "url": "https://shop.example.com/returns" }
      }
    ]
  }'
echo
