export async function operatorCommand(_args: string[]): Promise<number> {
  return 0;
}
