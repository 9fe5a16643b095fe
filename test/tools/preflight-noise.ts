/** What an operator must never see in the preflight's report: exception names, stack lines. */
export const DEVELOPER_NOISE =
  /\b\w*(Error|Exception)\b|\n\s+at |ValidationError|NoSuchHostedZone|ExpiredToken/;
