export { plugin as default } from './plugin';
