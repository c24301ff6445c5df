/** The version of the interface contract this server implements (/work spec interface-v1.24.1). */
export const INTERFACE_VERSION = '1.24.1';
