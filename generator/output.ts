/**
 * The output of `rvtrace generate` for a resolved component of any block: the block's RTL, a
 * filelist (`<block>.f`), a FuseSoC core (`<name>.core`) and the IP-XACT component (`<name>.xml`,
 * IEEE 1685-2014), every file with the same banner (generator/render.ts). The one IP-XACT writer
 * (`componentXml`) also serves `rvtrace ipxact`.
 */
import type { OutputFile, ResolvedComponent } from '../core/block.ts';
import { componentDocument } from '../ipxact/export.ts';
import type { IpxactStandard } from '../ipxact/reader/component.ts';
import { filelist, fuseSocCore } from './packaging.ts';
import { xmlBanner } from './render.ts';
import { renderWaivers } from './waivers.ts';

/** The IP-XACT component of the generated RTL; `command` regenerates it (default: `rvtrace generate`). */
export function componentXml(r: ResolvedComponent, standard: IpxactStandard, command?: string): string {
  return componentDocument(r.block.exportComponent(r), standard, xmlBanner(r.provenance, command));
}

/** The names of the files beside the RTL. */
export function outputNames(r: ResolvedComponent): { filelist: string; waivers: string; core: string; xml: string } {
  return { filelist: `${r.block.name}.f`, waivers: `${r.block.name}.vlt`, core: `${r.vlnv.name}.core`, xml: `${r.vlnv.name}.xml` };
}

/**
 * Every file of the output directory, in a fixed order: the RTL, the lint waivers, the filelist (the
 * waivers first), the core, the IP-XACT.
 */
export function generatedFiles(r: ResolvedComponent): OutputFile[] {
  const b = r.block;
  const names = outputNames(r);
  const rtl = b.rtl(r);
  const rtlNames = rtl.map((f) => f.name);
  return [
    ...rtl,
    renderWaivers(names.waivers, b.lintWaivers(r), r.provenance),
    { name: names.filelist, content: filelist({ banner: r.provenance, what: b.rtlTitle, filelistName: names.filelist, files: [names.waivers, ...rtlNames] }) },
    {
      name: names.core,
      content: fuseSocCore({ banner: r.provenance, what: b.rtlTitle, vlnv: r.vlnv, description: r.description, rtl: rtlNames, waivers: names.waivers, xmlName: names.xml, top: b.topModule }),
    },
    { name: names.xml, content: componentXml(r, '2014') },
  ];
}
