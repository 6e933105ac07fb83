"""Push a shop's products to LocalIQ, follow their jobs, and delete a discontinued product.

Needs Python 3.8+ and requests:  LOCALIQ_API_KEY=liq_... python3 push_products.py
"""
import os
import sys
import time
from urllib.parse import quote

import requests

BASE_URL = os.environ.get("LOCALIQ_URL", "http://127.0.0.1:7410")
API_KEY = os.environ["LOCALIQ_API_KEY"]
BATCH_SIZE = 500  # at most 1,000 items (and 10 MB) per bulk request
FINAL = {"succeeded", "skipped", "failed", "cancelled"}

# In a real integration these come from your shop's database.
products = [
    {"sku": "sku-200", "name": "Camping stove", "description": "Compact gas stove that boils a litre in four minutes.",
     "price": "59.00 EUR", "updated_at": "2026-05-04T09:00:00Z"},
    {"sku": "sku-201", "name": "Titanium mug", "description": "Light 450 ml mug with folding handles.",
     "price": "29.00 EUR", "updated_at": "2026-05-04T09:00:00Z"},
    {"sku": "sku-202", "name": "Headlamp", "description": "Rechargeable headlamp, 400 lumens, red light mode.",
     "price": "45.00 EUR", "updated_at": "2026-05-05T14:15:00Z"},
]
discontinued = ["sku-199"]

session = requests.Session()
session.headers["x-api-key"] = API_KEY


class LocalIqError(Exception):
    def __init__(self, status, code, message):
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code


def call(method, path, body=None):
    """One API call: waits out 429 as Retry-After says, retries 5xx and network errors with backoff."""
    attempt = 0
    while True:
        attempt += 1
        try:
            response = session.request(method, BASE_URL + path, json=body, timeout=30)
        except requests.ConnectionError:
            if attempt >= 5:
                raise
            time.sleep(0.5 * 2 ** attempt)
            continue
        if response.status_code == 429:
            seconds = int(response.headers.get("retry-after", "1"))
            print(f"rate limited, retrying in {seconds}s", file=sys.stderr)
            time.sleep(seconds)
            continue
        if response.status_code >= 500 and attempt < 5:
            time.sleep(0.5 * 2 ** attempt)
            continue
        payload = response.json()
        if not response.ok:
            raise LocalIqError(response.status_code, payload["code"], payload["message"])
        return payload


items = [
    {
        "integrationId": "shop",
        "knowledgeBaseId": "main",
        "sourceType": "PRODUCT",
        "externalId": p["sku"],
        # Your own version marker as the hash: an unchanged product is skipped without reprocessing.
        "data": {"title": p["name"], "content": p["description"],
                 "sourceData": {"price": p["price"]}, "hash": p["updated_at"]},
    }
    for p in products
]

job_ids = []
for start in range(0, len(items), BATCH_SIZE):
    ack = call("POST", "/ingest/bulk", {"items": items[start:start + BATCH_SIZE]})
    print(f"queued {ack['jobCount']} jobs, estimated {ack['estimatedTime']}")
    job_ids.extend(ack["jobIds"])

# Follow every job until it is final.
pending = list(job_ids)
while pending:
    for job_id in list(pending):
        job = call("GET", f"/jobs/{quote(job_id, safe='')}?knowledgeBaseId=main&integrationId=shop")
        if job["status"] in FINAL:
            # A failed job's error, or a note on how another ended ("superseded by a newer version").
            said = job["lastError"] or job["note"]
            print(f"{job['externalId']}: {job['status']}" + (f" ({said})" if said else ""))
            pending.remove(job_id)
    if pending:
        time.sleep(1)

# Remove what the shop no longer sells; an item that is already gone answers 404.
for sku in discontinued:
    try:
        call("DELETE", f"/items/main/shop/{quote(sku, safe='')}")
        print(f"{sku}: deleted")
    except LocalIqError as error:
        if error.status != 404:
            raise
        print(f"{sku}: already gone")
