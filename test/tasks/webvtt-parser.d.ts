// The parser ships no types; these are the parts the export tests use.
declare module 'webvtt-parser' {
  export interface VttNode {
    type: string;
    name?: string;
    value?: string;
    children?: VttNode[];
  }
  export interface VttCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
    tree: { children: VttNode[] };
  }
  export class WebVTTParser {
    constructor(entities?: Record<string, string>);
    parse(input: string, mode: 'metadata' | 'subtitles' | 'chapters'): { cues: VttCue[]; errors: { message: string; line: number }[] };
  }
}
