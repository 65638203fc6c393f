/** The counter block's RTL: one module from one template. */
import type { OutputFile, Provenance } from '../../core/block.ts';
import type { CounterConfig } from '../../golden-model/counter/model.ts';
import { commentBanner, renderTemplate, svRange, svSized } from '../render.ts';

export function renderCounterRtl(c: CounterConfig, p: Provenance): OutputFile[] {
  const context = { banner: commentBanner(p, '//'), countRange: svRange(c.width).padEnd(6), step: svSized(c.width, BigInt(c.step % 2 ** c.width)) };
  return [{ name: 'counter_top.sv', content: renderTemplate('counter/counter_top.sv.hbs', context) }];
}
