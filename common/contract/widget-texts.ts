import type { WidgetStrings } from './widget.ts';

/**
 * The widget's built-in texts, one set per language a widget can speak: every string a visitor
 * reads in the widget and on its hosted page. A widget's own texts (its `strings`) replace single
 * entries of its language's set. No zod here: the widget script imports the English set as its
 * fallback, and a schema would outweigh it.
 */

/** The languages of the built-in sets (ISO 639-1), in the order the dashboard offers them. */
export const WIDGET_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl'] as const;
export type WidgetLanguage = (typeof WIDGET_LANGUAGES)[number];

/** Each language by its own name, for the dashboard's picker. */
export const WIDGET_LANGUAGE_NAMES: Record<WidgetLanguage, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
  nl: 'Nederlands',
};

export function isWidgetLanguage(language: string): language is WidgetLanguage {
  return (WIDGET_LANGUAGES as readonly string[]).includes(language);
}

export const ENGLISH_WIDGET_TEXTS: WidgetStrings = {
  launcherLabel: 'Ask a question',
  title: 'Ask us',
  placeholder: 'Type your question…',
  inputLabel: 'Your question',
  send: 'Send',
  close: 'Close',
  thinking: 'Looking it up…',
  busy: 'The assistant is busy right now. Please try again in a moment.',
  rateLimited: 'You have asked a lot of questions in a short time. Please wait a moment and try again.',
  unreachable: 'The assistant cannot be reached right now. Please try again later.',
  sources: 'Sources',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  thanks: 'Thank you for your feedback.',
  newConversation: 'New conversation',
  showingResultsFor: 'Showing results for',
  page: 'page',
  product: 'Product',
  noScript: 'This chat needs JavaScript.',
  handoffOffer: 'Ask the team',
  handoffOfferHint: 'Our team can answer this. Leave your question and how to reach you.',
  handoffQuestion: 'Your question',
  handoffName: 'Name (optional)',
  handoffEmail: 'E-mail',
  handoffPhone: 'Phone',
  handoffContactHint: 'An e-mail address or a phone number, so we can reply.',
  handoffConsent: 'I agree that the shop may contact me about my question.',
  handoffSend: 'Send to the team',
  handoffCancel: 'Cancel',
  handoffSent: 'Thank you. The team will reply here and by the contact you gave.',
  handoffNeedContact: 'Please give an e-mail address or a phone number.',
  handoffNeedConsent: 'Please tick the box so the team may contact you.',
  handoffInvalidEmail: 'Please check the e-mail address.',
  handoffInvalidContact: 'Please check the e-mail address and the phone number.',
  handoffTooMany: 'You have left several questions already; the team will reply to those.',
  handoffFailed: 'Your question could not be sent. Please try again in a moment.',
  handoffReplied: 'The team replied to “{question}”:',
  didYouMean: 'Did you mean:',
};

// French puts a no-break space (U+00A0) before ? ! and :, so the sign never starts a line.
const NBSP = '\u00a0';

export const WIDGET_TEXTS: Record<WidgetLanguage, WidgetStrings> = {
  en: ENGLISH_WIDGET_TEXTS,
  de: {
    launcherLabel: 'Frage stellen',
    title: 'Fragen Sie uns',
    placeholder: 'Ihre Frage eingeben…',
    inputLabel: 'Ihre Frage',
    send: 'Senden',
    close: 'Schließen',
    thinking: 'Einen Moment, ich sehe nach…',
    busy: 'Der Assistent ist gerade ausgelastet. Bitte versuchen Sie es gleich noch einmal.',
    rateLimited: 'Sie haben in kurzer Zeit viele Fragen gestellt. Bitte warten Sie einen Moment und versuchen Sie es dann erneut.',
    unreachable: 'Der Assistent ist gerade nicht erreichbar. Bitte versuchen Sie es später noch einmal.',
    sources: 'Quellen',
    helpful: 'Hilfreich',
    notHelpful: 'Nicht hilfreich',
    thanks: 'Vielen Dank für Ihr Feedback.',
    newConversation: 'Neues Gespräch',
    showingResultsFor: 'Ergebnisse für',
    page: 'Seite',
    product: 'Produkt',
    noScript: 'Für diesen Chat wird JavaScript benötigt.',
    handoffOffer: 'Unser Team fragen',
    handoffOfferHint: 'Unser Team hilft Ihnen gern weiter. Hinterlassen Sie Ihre Frage und wie wir Sie erreichen.',
    handoffQuestion: 'Ihre Frage',
    handoffName: 'Ihr Name (optional)',
    handoffEmail: 'E-Mail',
    handoffPhone: 'Telefon',
    handoffContactHint: 'Eine E-Mail-Adresse oder eine Telefonnummer, damit wir Ihnen antworten können.',
    handoffConsent: 'Ich bin einverstanden, dass der Shop mich zu meiner Frage kontaktiert.',
    handoffSend: 'An das Team senden',
    handoffCancel: 'Abbrechen',
    handoffSent: 'Vielen Dank! Das Team antwortet Ihnen hier und über den angegebenen Kontakt.',
    handoffNeedContact: 'Bitte geben Sie eine E-Mail-Adresse oder eine Telefonnummer an.',
    handoffNeedConsent: 'Bitte setzen Sie das Häkchen, damit das Team Sie kontaktieren darf.',
    handoffInvalidEmail: 'Bitte prüfen Sie die E-Mail-Adresse.',
    handoffInvalidContact: 'Bitte prüfen Sie die E-Mail-Adresse und die Telefonnummer.',
    handoffTooMany: 'Sie haben bereits mehrere Fragen hinterlassen; das Team beantwortet diese.',
    handoffFailed: 'Ihre Frage konnte nicht gesendet werden. Bitte versuchen Sie es gleich noch einmal.',
    handoffReplied: 'Antwort des Teams auf „{question}“:',
    didYouMean: 'Meinten Sie:',
  },
  fr: {
    launcherLabel: 'Poser une question',
    title: `Une question${NBSP}?`,
    placeholder: 'Saisissez votre question…',
    inputLabel: 'Votre question',
    send: 'Envoyer',
    close: 'Fermer',
    thinking: 'Recherche en cours…',
    busy: "L'assistant est très sollicité pour le moment. Veuillez réessayer dans un instant.",
    rateLimited: 'Vous avez posé beaucoup de questions en peu de temps. Veuillez patienter un instant, puis réessayer.',
    unreachable: "L'assistant est injoignable pour le moment. Veuillez réessayer plus tard.",
    sources: 'Sources',
    helpful: 'Utile',
    notHelpful: 'Pas utile',
    thanks: 'Merci pour votre avis.',
    newConversation: 'Nouvelle conversation',
    showingResultsFor: 'Résultats pour',
    page: 'page',
    product: 'Produit',
    noScript: 'Ce chat nécessite JavaScript.',
    handoffOffer: "Demander à l'équipe",
    handoffOfferHint: 'Notre équipe peut vous répondre. Laissez votre question et vos coordonnées.',
    handoffQuestion: 'Votre question',
    handoffName: 'Votre nom (facultatif)',
    handoffEmail: 'E-mail',
    handoffPhone: 'Téléphone',
    handoffContactHint: 'Une adresse e-mail ou un numéro de téléphone, pour que nous puissions vous répondre.',
    handoffConsent: "J'accepte que la boutique me contacte au sujet de ma question.",
    handoffSend: "Envoyer à l'équipe",
    handoffCancel: 'Annuler',
    handoffSent: `Merci${NBSP}! L'équipe vous répondra ici et par le moyen de contact indiqué.`,
    handoffNeedContact: 'Veuillez indiquer une adresse e-mail ou un numéro de téléphone.',
    handoffNeedConsent: "Veuillez cocher la case pour que l'équipe puisse vous contacter.",
    handoffInvalidEmail: "Veuillez vérifier l'adresse e-mail.",
    handoffInvalidContact: "Veuillez vérifier l'adresse e-mail et le numéro de téléphone.",
    handoffTooMany: `Vous avez déjà laissé plusieurs questions${NBSP}; l'équipe y répondra.`,
    handoffFailed: "Votre question n'a pas pu être envoyée. Veuillez réessayer dans un instant.",
    handoffReplied: `Réponse de l'équipe à «${NBSP}{question}${NBSP}»${NBSP}:`,
    didYouMean: `Vouliez-vous dire${NBSP}:`,
  },
  es: {
    launcherLabel: 'Hacer una pregunta',
    title: 'Pregúntenos',
    placeholder: 'Escriba su pregunta…',
    inputLabel: 'Su pregunta',
    send: 'Enviar',
    close: 'Cerrar',
    thinking: 'Buscando…',
    busy: 'El asistente está ocupado en este momento. Inténtelo de nuevo en unos instantes.',
    rateLimited: 'Ha hecho muchas preguntas en poco tiempo. Espere un momento y vuelva a intentarlo.',
    unreachable: 'Ahora mismo no es posible contactar con el asistente. Inténtelo de nuevo más tarde.',
    sources: 'Fuentes',
    helpful: 'Útil',
    notHelpful: 'No es útil',
    thanks: 'Gracias por su opinión.',
    newConversation: 'Nueva conversación',
    showingResultsFor: 'Resultados para',
    page: 'página',
    product: 'Producto',
    noScript: 'Este chat necesita JavaScript.',
    handoffOffer: 'Preguntar al equipo',
    handoffOfferHint: 'Nuestro equipo puede responderle. Deje su pregunta y cómo contactar con usted.',
    handoffQuestion: 'Su pregunta',
    handoffName: 'Su nombre (opcional)',
    handoffEmail: 'Correo electrónico',
    handoffPhone: 'Teléfono',
    handoffContactHint: 'Un correo electrónico o un número de teléfono para poder responderle.',
    handoffConsent: 'Acepto que la tienda se ponga en contacto conmigo sobre mi pregunta.',
    handoffSend: 'Enviar al equipo',
    handoffCancel: 'Cancelar',
    handoffSent: 'Gracias. El equipo le responderá aquí y a través del contacto que ha indicado.',
    handoffNeedContact: 'Indique un correo electrónico o un número de teléfono.',
    handoffNeedConsent: 'Marque la casilla para que el equipo pueda contactar con usted.',
    handoffInvalidEmail: 'Revise la dirección de correo electrónico.',
    handoffInvalidContact: 'Revise el correo electrónico y el número de teléfono.',
    handoffTooMany: 'Ya ha dejado varias preguntas; el equipo le responderá a esas.',
    handoffFailed: 'No se ha podido enviar su pregunta. Inténtelo de nuevo en unos instantes.',
    handoffReplied: 'Respuesta del equipo a «{question}»:',
    didYouMean: '¿Quería decir…?',
  },
  it: {
    launcherLabel: 'Fai una domanda',
    title: 'Chiedi a noi',
    placeholder: 'Scrivi la tua domanda…',
    inputLabel: 'La tua domanda',
    send: 'Invia',
    close: 'Chiudi',
    thinking: 'Sto cercando…',
    busy: "L'assistente è occupato in questo momento. Riprova tra poco.",
    rateLimited: 'Hai fatto molte domande in poco tempo. Attendi un momento e riprova.',
    unreachable: "L'assistente non è raggiungibile in questo momento. Riprova più tardi.",
    sources: 'Fonti',
    helpful: 'Utile',
    notHelpful: 'Non utile',
    thanks: 'Grazie per il tuo feedback.',
    newConversation: 'Nuova conversazione',
    showingResultsFor: 'Risultati per',
    page: 'pagina',
    product: 'Prodotto',
    noScript: 'Questa chat richiede JavaScript.',
    handoffOffer: 'Chiedi al team',
    handoffOfferHint: 'Il nostro team può risponderti. Lascia la tua domanda e come contattarti.',
    handoffQuestion: 'La tua domanda',
    handoffName: 'Il tuo nome (facoltativo)',
    handoffEmail: 'E-mail',
    handoffPhone: 'Telefono',
    handoffContactHint: 'Un indirizzo e-mail o un numero di telefono, così possiamo risponderti.',
    handoffConsent: 'Accetto che il negozio mi contatti riguardo alla mia domanda.',
    handoffSend: 'Invia al team',
    handoffCancel: 'Annulla',
    handoffSent: 'Grazie! Il team ti risponderà qui e tramite il contatto che hai lasciato.',
    handoffNeedContact: 'Indica un indirizzo e-mail o un numero di telefono.',
    handoffNeedConsent: 'Spunta la casella così il team può contattarti.',
    handoffInvalidEmail: "Controlla l'indirizzo e-mail.",
    handoffInvalidContact: "Controlla l'indirizzo e-mail e il numero di telefono.",
    handoffTooMany: 'Hai già lasciato diverse domande; il team risponderà a quelle.',
    handoffFailed: 'Non è stato possibile inviare la tua domanda. Riprova tra poco.',
    handoffReplied: 'Risposta del team a «{question}»:',
    didYouMean: 'Forse intendevi:',
  },
  nl: {
    launcherLabel: 'Stel een vraag',
    title: 'Vraag het ons',
    placeholder: 'Typ je vraag…',
    inputLabel: 'Je vraag',
    send: 'Versturen',
    close: 'Sluiten',
    thinking: 'Even zoeken…',
    busy: 'De assistent heeft het nu even druk. Probeer het zo opnieuw.',
    rateLimited: 'Je hebt in korte tijd veel vragen gesteld. Wacht even en probeer het dan opnieuw.',
    unreachable: 'De assistent is nu niet bereikbaar. Probeer het later opnieuw.',
    sources: 'Bronnen',
    helpful: 'Nuttig',
    notHelpful: 'Niet nuttig',
    thanks: 'Bedankt voor je feedback.',
    newConversation: 'Nieuw gesprek',
    showingResultsFor: 'Resultaten voor',
    page: 'pagina',
    product: 'Product',
    noScript: 'Voor deze chat is JavaScript nodig.',
    handoffOffer: 'Vraag het team',
    handoffOfferHint: 'Ons team helpt je graag. Laat je vraag achter en hoe we je kunnen bereiken.',
    handoffQuestion: 'Je vraag',
    handoffName: 'Je naam (optioneel)',
    handoffEmail: 'E-mail',
    handoffPhone: 'Telefoon',
    handoffContactHint: 'Een e-mailadres of telefoonnummer, zodat we je kunnen antwoorden.',
    handoffConsent: 'Ik ga ermee akkoord dat de winkel contact met me opneemt over mijn vraag.',
    handoffSend: 'Naar het team sturen',
    handoffCancel: 'Annuleren',
    handoffSent: 'Bedankt! Het team antwoordt hier en via het contact dat je hebt achtergelaten.',
    handoffNeedContact: 'Laat een e-mailadres of telefoonnummer achter.',
    handoffNeedConsent: 'Vink het vakje aan zodat het team contact met je mag opnemen.',
    handoffInvalidEmail: 'Controleer het e-mailadres.',
    handoffInvalidContact: 'Controleer het e-mailadres en het telefoonnummer.',
    handoffTooMany: 'Je hebt al meerdere vragen achtergelaten; het team beantwoordt die.',
    handoffFailed: 'Je vraag kon niet worden verstuurd. Probeer het zo opnieuw.',
    handoffReplied: 'Antwoord van het team op “{question}”:',
    didYouMean: 'Bedoelde u:',
  },
};

/** The greeting and the fallback message a new widget gets in each language. */
export type WidgetMessages = { greeting: string; fallbackMessage: string };

export const WIDGET_MESSAGES: Record<WidgetLanguage, WidgetMessages> = {
  en: {
    greeting: 'Hello! Ask me anything about our products and services.',
    fallbackMessage: "I could not find that in our information. Please contact us and we'll be glad to help.",
  },
  de: {
    greeting: 'Hallo! Fragen Sie mich alles zu unseren Produkten und Leistungen.',
    fallbackMessage: 'Dazu habe ich in unseren Informationen leider nichts gefunden. Schreiben Sie uns gern, wir helfen Ihnen weiter.',
  },
  fr: {
    greeting: `Bonjour${NBSP}! Posez-moi vos questions sur nos produits et nos services.`,
    fallbackMessage: "Je n'ai pas trouvé cette information. N'hésitez pas à nous contacter, nous vous aiderons volontiers.",
  },
  es: {
    greeting: '¡Hola! Pregúnteme lo que quiera sobre nuestros productos y servicios.',
    fallbackMessage: 'No he encontrado esa información. Póngase en contacto con nosotros y le ayudaremos con mucho gusto.',
  },
  it: {
    greeting: 'Ciao! Chiedimi pure qualsiasi cosa sui nostri prodotti e servizi.',
    fallbackMessage: 'Non ho trovato questa informazione. Contattaci e saremo felici di aiutarti.',
  },
  nl: {
    greeting: 'Hallo! Stel me gerust je vragen over onze producten en diensten.',
    fallbackMessage: 'Dat kon ik niet vinden in onze informatie. Neem gerust contact met ons op, we helpen je graag.',
  },
};

/**
 * A widget's greeting or fallback message as its language has it: a built-in one (of any
 * language, the widget's own never written) becomes the built-in one of `language`, so changing
 * a widget's language changes the messages its owner left as they were; the owner's own text stays.
 */
export function messageIn(language: WidgetLanguage, kind: keyof WidgetMessages, text: string): string {
  const builtIn = WIDGET_LANGUAGES.some((other) => WIDGET_MESSAGES[other][kind] === text);
  return builtIn ? WIDGET_MESSAGES[language][kind] : text;
}

/** The texts a widget shows: its language's set with the widget's own texts in place of single entries. */
export function resolveWidgetTexts(language: WidgetLanguage, own: Partial<WidgetStrings>): WidgetStrings {
  const texts = { ...WIDGET_TEXTS[language] };
  for (const [key, text] of Object.entries(own) as Array<[keyof WidgetStrings, string | undefined]>) {
    if (text) texts[key] = text;
  }
  return texts;
}
