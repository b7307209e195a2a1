export function asciiOnly(text: string): string
