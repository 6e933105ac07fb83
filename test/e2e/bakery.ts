/** The bakery both conversation e2e tests push and ask about, and the shop origin its widget allows. */
export const KB = 'bakery';
export const ORIGIN = 'https://shop.example';
export const ITEMS = [
  { externalId: 'hours', title: 'Opening hours', content: 'The bakery opens at 7 in the morning from Monday to Saturday and closes at 6 in the evening. On Sundays it opens at 8 and closes at noon.' },
  { externalId: 'delivery', title: 'Delivery', content: 'Bread and pastries are delivered by bicycle within five kilometres. Delivery is free for orders above 30 euros.' },
];
