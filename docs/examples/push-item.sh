#!/bin/sh
# Push one item, then follow its job until it reaches a final state.
set -eu
: "${LOCALIQ_URL:=http://127.0.0.1:7410}"

curl -sS --fail-with-body --retry 5 "$LOCALIQ_URL/ingest" \
  -H "x-api-key: $LOCALIQ_API_KEY" \
  -H 'content-type: application/json' \
  -d '{
    "integrationId": "shop",
    "knowledgeBaseId": "main",
    "sourceType": "PRODUCT",
    "externalId": "sku-42",
    "data": {
      "title": "Rain jacket",
      "content": "Waterproof jacket with taped seams and a packable hood.",
      "url": "https://shop.example.com/products/rain-jacket",
      "sourceData": { "price": "89.00 EUR", "color": "navy" }
    }
  }'
echo

# The jobId is integrationId-externalId: "shop-sku-42".
while :; do
  job=$(curl -sS --fail-with-body --retry 5 \
    "$LOCALIQ_URL/jobs/shop-sku-42?knowledgeBaseId=main&integrationId=shop" \
    -H "x-api-key: $LOCALIQ_API_KEY")
  status=$(printf '%s' "$job" | sed -n 's/.*"status":"\([a-z]*\)".*/\1/p')
  echo "job shop-sku-42: $status"
  case "$status" in
    succeeded | skipped | failed | cancelled) break ;;
  esac
  sleep 1
done
