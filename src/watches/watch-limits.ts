/** Most active watches one person sets up, by default (a real team never meets it; one person cannot stretch everyone's checks). */
export const MAX_WATCHES_PER_PERSON = 20;
