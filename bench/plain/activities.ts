/** The baseline's activity: as cheap as an activity gets. */
export async function greet(name: string): Promise<string> {
  return `Hello, ${name}!`;
}
