#!/bin/sh
# Delete an item that no longer exists at the source: its chunks and vectors go with it.
# A 404 means it was already gone, which is done as well; any other error fails the script.
set -eu
: "${LOCALIQ_URL:=http://127.0.0.1:7410}"

answer=$(curl -sS --retry 5 -w '\n%{http_code}' -X DELETE \
  "$LOCALIQ_URL/items/main/shop/sku-43" \
  -H "x-api-key: $LOCALIQ_API_KEY")
printf '%s\n' "$answer" | sed '$d'
status=$(printf '%s\n' "$answer" | tail -n 1)
[ "$status" = 200 ] || [ "$status" = 404 ]
