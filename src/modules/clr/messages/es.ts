import type { ClrMessages } from './en.js';

export const es: ClrMessages = {
  heading: 'Tus expedientes de aprendizaje',
  lead: 'Cada expediente completo de aprendizaje (CLR 2.0) contiene las insignias firmadas de un itinerario que has completado.',
  validUntil: 'válido hasta el {date}',
  credential: 'Credencial CLR 2.0',
  issued: 'emitido el {date}',
};
