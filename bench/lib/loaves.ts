/**
 * A bakery's loaves for the benches that time an item from its push to being found: about 450
 * characters each, every one different, so nothing comes from the embedding cache. `mark` puts a
 * word only that loaf holds into its text, for a search that must find it; `priced` adds a price.
 */
export function loaf(i: number, knowledgeBaseId: string, { mark = null, priced = false }: { mark?: string | null; priced?: boolean } = {}) {
  return {
    integrationId: 'webshop',
    knowledgeBaseId,
    sourceType: 'PRODUCT',
    externalId: `sku-${i}`,
    data: {
      title: `Loaf ${i}`,
      content:
        `Loaf ${i} is baked every morning from flour of mill ${i % 37} with a crust of grade ${i % 11}. ` +
        `It keeps for ${2 + (i % 5)} days in a paper bag and freezes well for a month. ` +
        `Batch ${i * 13} uses seeds from farm ${i % 23}; allergens are listed on shelf ${i % 17}. ` +
        (mark ? `Its baker calls it the ${mark} loaf. ` : '') +
        `Ask for slicing at the counter; whole loaves weigh ${400 + (i % 9) * 50} grams.`,
      ...(priced ? { sourceData: { price: `${(2 + (i % 40) / 10).toFixed(2)} EUR` } } : {}),
    },
  };
}
