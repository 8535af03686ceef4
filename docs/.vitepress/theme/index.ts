import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import HerdLive from '../components/HerdLive.vue';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('HerdLive', HerdLive);
  },
} satisfies Theme;
