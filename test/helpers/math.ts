import { verify, type MathRequest } from '../../plugins/engines/math/engine.js';

export type Out = ReturnType<typeof verify>;
export const v = (expression: string, extra: Omit<MathRequest, 'expression'> = {}): Out => verify({ expression, ...extra });
export const df = (o: Out): Record<string, any> => o.developer_fields as Record<string, any>;
