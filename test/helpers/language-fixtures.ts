/**
 * Two small outdoor-shop catalogues written in German and French (products and shop pages), for
 * the keyword languages: words inflected otherwise in the queries than in the items ("Jacken",
 * "chaussures"), diacritics left out ("Offnungszeiten", "feries"), stop words. Used by
 * test/unit/server/retrieval/keyword-languages.test.ts, test/integration/keyword-languages.test.ts and
 * test/integration/ask-languages.test.ts.
 */
export type CatalogueItem = { externalId: string; sourceType: 'ARTICLE' | 'PRODUCT'; title: string; content: string };

/** Catalogue items as pushed to `POST /ingest/bulk` (integration `shop`). */
export const pushedItems = (knowledgeBaseId: string, items: CatalogueItem[]) =>
  items.map((item) => ({
    integrationId: 'shop',
    knowledgeBaseId,
    sourceType: item.sourceType,
    externalId: item.externalId,
    data: { title: item.title, content: item.content },
  }));

export const GERMAN_KB = 'kb-laden';
export const GERMAN_ITEMS: CatalogueItem[] = [
  { externalId: 'jacke', sourceType: 'PRODUCT', title: 'Wasserdichte Jacke', content: 'Eine leichte Jacke für Wanderungen im Regen, mit Kapuze und zwei Taschen.' },
  { externalId: 'stiefel', sourceType: 'PRODUCT', title: 'Wanderstiefel aus Leder', content: 'Robuste Stiefel mit griffiger Sohle für steinige Wege.' },
  { externalId: 'feiertage', sourceType: 'ARTICLE', title: 'Öffnungszeiten an Feiertagen', content: 'Unsere Filialen haben an Feiertagen von 10 bis 16 Uhr geöffnet.' },
  { externalId: 'rueckgabe', sourceType: 'ARTICLE', title: 'Rückgabe und Umtausch', content: 'Ungetragene Artikel nehmen wir innerhalb von 30 Tagen zurück; der Kaufpreis wird erstattet.' },
  { externalId: 'handschuhe', sourceType: 'PRODUCT', title: 'Warme Handschuhe', content: 'Gefütterte Handschuhe aus Wolle für kalte Tage.' },
  { externalId: 'rucksack', sourceType: 'PRODUCT', title: 'Rucksack mit 30 Litern', content: 'Ein bequemer Rucksack mit gepolsterten Trägern und einer Trinkblase.' },
  { externalId: 'zelt', sourceType: 'PRODUCT', title: 'Zelt für zwei Personen', content: 'Ein leichtes Zelt, in fünf Minuten aufgebaut.' },
  { externalId: 'muetze', sourceType: 'PRODUCT', title: 'Mütze aus Merinowolle', content: 'Eine weiche Mütze, die nicht kratzt.' },
  { externalId: 'versand', sourceType: 'ARTICLE', title: 'Versandkosten', content: 'Ab 50 Euro ist der Versand kostenlos, sonst kostet er 4,90 Euro.' },
  { externalId: 'schlafsack', sourceType: 'PRODUCT', title: 'Schlafsack für den Winter', content: 'Der Schlafsack wärmt bis minus 10 Grad.' },
];

export const FRENCH_KB = 'kb-boutique';
export const FRENCH_ITEMS: CatalogueItem[] = [
  { externalId: 'chaussure', sourceType: 'PRODUCT', title: 'Chaussure de randonnée', content: 'Une chaussure imperméable avec une semelle solide pour les sentiers.' },
  { externalId: 'veste', sourceType: 'PRODUCT', title: 'Veste polaire', content: 'Une veste chaude pour l’hiver, avec une capuche.' },
  { externalId: 'feries', sourceType: 'ARTICLE', title: 'Horaires d’ouverture les jours fériés', content: 'Nos magasins sont ouverts de 10 h à 16 h les jours fériés.' },
  { externalId: 'retours', sourceType: 'ARTICLE', title: 'Retours et échanges', content: 'Vous pouvez nous renvoyer un article non porté sous 30 jours ; il est remboursé.' },
  { externalId: 'sac', sourceType: 'PRODUCT', title: 'Sac à dos de 30 litres', content: 'Un sac confortable avec des bretelles rembourrées.' },
  { externalId: 'tente', sourceType: 'PRODUCT', title: 'Tente pour deux personnes', content: 'Une tente légère, montée en cinq minutes.' },
  { externalId: 'gants', sourceType: 'PRODUCT', title: 'Gants chauds', content: 'Des gants doublés en laine pour les journées froides.' },
  { externalId: 'bonnet', sourceType: 'PRODUCT', title: 'Bonnet en laine mérinos', content: 'Un bonnet doux qui ne gratte pas.' },
  { externalId: 'livraison', sourceType: 'ARTICLE', title: 'Frais de livraison', content: 'La livraison est gratuite dès 50 euros, sinon elle coûte 4,90 euros.' },
  { externalId: 'lampe', sourceType: 'PRODUCT', title: 'Lampe frontale', content: 'Une lampe puissante et rechargeable.' },
];

/** Queries and the item each must find first, in the catalogue's language. */
export const GERMAN_QUERIES: Array<[query: string, expected: string]> = [
  ['Jacken', 'jacke'],
  ['Offnungszeiten Feiertag', 'feiertage'],
  ['Handschuh', 'handschuhe'],
  ['griffige Sohlen', 'stiefel'],
  ['Mutzen', 'muetze'],
  ['Zelte', 'zelt'],
  ['Rucksäcke', 'rucksack'],
  ['Schlafsäcke', 'schlafsack'],
];
export const FRENCH_QUERIES: Array<[query: string, expected: string]> = [
  ['chaussures', 'chaussure'],
  ['jour ferie', 'feries'],
  ['vestes', 'veste'],
  ['tentes legeres', 'tente'],
  ['gant', 'gants'],
  ['bonnets', 'bonnet'],
  ['lampes', 'lampe'],
  ['echange', 'retours'],
];
