#!/bin/sh
# Delete an item that no longer exists at the source: its chunks and vectors go with it.
set -eu
: "${LOCALIQ_URL:=http://127.0.0.1:7410}"

curl -sS --fail-with-body --retry 5 -X DELETE \
  "$LOCALIQ_URL/items/main/shop/sku-43" \
  -H "x-api-key: $LOCALIQ_API_KEY"
echo
