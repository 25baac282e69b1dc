" Vim syntax file
" Language:    robray scene files (amino aarxc / robrayc)
" Maintainer:  robrayc project
" Filenames:   *.robray
"
" Follows grammar/robray.lark.  Hyphens belong to identifiers (`upper-link`, `frame-x`), so
" keywords are matched only where they are whole identifiers, and a keyword directly followed
" or preceded by `-name` is part of a longer name.  Attribute names are highlighted where an
" attribute can stand (first word of a statement), so a `def` named like an attribute is not
" mistaken for one when it is used in an expression.

if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syn case match
" Word boundaries for \< and \> below, independent of the buffer's 'iskeyword' (the ftplugin
" adds '-' to it for motions; these patterns treat hyphens explicitly).
syn iskeyword @,48-57,_,192-255

" A whole identifier: not the tail of a hyphenated name, not followed by `-name`.
let s:pre = '\%(\<\h\w*\%(-\w\+\)*-\)\@<!\<'
let s:post = '\>\%(-\w\)\@!'
function! s:Word(list) abort
  return s:pre . '\%(' . join(a:list, '\|') . '\)' . s:post
endfunction
" Where an attribute can stand: first word of a line or after `{` or `;`.
let s:stmt = '\%(\%(^\|[{;]\)\s*\)\@<='

let s:frame_attrs = ['parent', 'translation', 'quaternion', 'rpy', 'type', 'axis', 'offset',
      \ 'variable', 'limit_position', 'limit_velocity', 'limit_acceleration', 'limit_effort',
      \ 'mass', 'inertia', 'link', 'link_role', 'robot', 'root_link']
let s:geom_attrs = ['shape', 'mesh', 'dimension', 'radius', 'height', 'start_radius',
      \ 'end_radius', 'delta', 'thickness', 'color', 'alpha', 'specular', 'scale', 'visual',
      \ 'collision', 'no-shadow', 'no_shadow', 'material']

" --- identifiers (defined first: later items win at the same position) ---------------------
syn match robrayName '\<\h\w*\%(-\w\+\)*'

" --- numbers: 1  1.  .5  1.5  1e-2  2.5D2  1d-3  1s2  1e+3 ----------------------------------
syn match robrayNumber '\%(\w\|\.\)\@<!\%(\d\+\%(\.\d*\)\=\|\.\d\+\)\%([eEdDsS][-+]\=\d\+\)\=\%(\w\)\@!'

" --- constants -------------------------------------------------------------------------------
exe 'syn match robrayConstant /' . s:Word(['pi', 'deg']) . '/'
syn match robrayConstant 'π'

" --- keywords --------------------------------------------------------------------------------
exe 'syn match robrayInclude /' . s:Word(['include']) . '/ nextgroup=robrayIncludePath skipwhite skipempty'
exe 'syn match robrayDefine /' . s:Word(['def']) . '/ nextgroup=robrayDefName skipwhite skipempty'
exe 'syn match robrayKeyword /' . s:Word(['frame', 'object']) . '/ nextgroup=robrayFrameName skipwhite skipempty'
exe 'syn match robrayKeyword /' . s:Word(['class']) . '/ nextgroup=robrayClassName skipwhite skipempty'
exe 'syn match robrayKeyword /' . s:Word(['geometry']) . '/'
exe 'syn match robrayKeyword /' . s:Word(['allow_collision']) . '/ nextgroup=robrayAllowName skipwhite skipempty'

" --- attributes ------------------------------------------------------------------------------
exe 'syn match robrayFrameAttr /' . s:stmt . s:Word(s:frame_attrs) . '/'
exe 'syn match robrayGeomAttr /' . s:stmt . s:Word(s:geom_attrs) . '/'
" Attributes whose value is a name get their own items so the name is highlighted.
exe 'syn match robrayFrameAttr /' . s:stmt . s:Word(['parent']) . '/ nextgroup=robrayFrameRef skipwhite skipempty'
exe 'syn match robrayFrameAttr /' . s:stmt . s:Word(['type']) . '/ nextgroup=robrayJointType skipwhite skipempty'
exe 'syn match robrayGeomAttr /' . s:stmt . s:Word(['shape']) . '/ nextgroup=robrayShape skipwhite skipempty'
exe 'syn match robrayGeomAttr /' . s:stmt . s:Word(['mesh']) . '/ nextgroup=robrayPath skipwhite skipempty'
exe 'syn match robrayIsa /' . s:stmt . s:Word(['isa']) . '/ nextgroup=robrayClassName skipwhite skipempty'

" --- names after keywords and attributes -----------------------------------------------------
let s:name = '\%(\<\h\w*\%(-\w\+\)*\|"[^"]*"\)'
exe 'syn match robrayFrameName contained /' . s:name . '/'
exe 'syn match robrayFrameRef contained /' . s:name . '/'
exe 'syn match robrayAllowName contained /' . s:name . '/ nextgroup=robrayFrameRef skipwhite skipempty'
exe 'syn match robrayClassName contained /' . s:name . '/'
syn match robrayDefName contained '\<\h\w*\%(-\w\+\)*'
syn match robrayIncludePath contained '"[^"]*"'
syn match robrayPath contained '"[^"]*"'
exe 'syn match robrayShape contained /' . s:Word(['box', 'sphere', 'cylinder', 'cone', 'grid']) . '/'
exe 'syn match robrayJointType contained /' . s:Word(['fixed', 'revolute', 'prismatic', 'ball', 'floating']) . '/'

" --- operators, strings, comments (last: they win wherever they start, e.g. over `/`) -------------------------------
syn match robrayOperator '\*\*\|[-+*/^]'
syn region robrayString start='"' end='"' oneline
syn keyword robrayTodo contained TODO FIXME XXX NOTE
syn match robrayLineComment '\%(//\|#\).*$' contains=robrayTodo,@Spell
syn region robrayBlockComment start='/\*' end='\*/' contains=robrayTodo,@Spell fold
syn region robrayBlock start='{' end='}' transparent fold

" Re-synchronise on block comments (they may be long) and on top-level statements.
syn sync ccomment robrayBlockComment minlines=20

hi def link robrayLineComment  Comment
hi def link robrayBlockComment Comment
hi def link robrayTodo         Todo
hi def link robrayString       String
hi def link robrayPath         String
hi def link robrayIncludePath  String
hi def link robrayNumber       Number
hi def link robrayConstant     Constant
hi def link robrayKeyword      Keyword
hi def link robrayDefine       Define
hi def link robrayInclude      Include
hi def link robrayFrameAttr    Type
hi def link robrayGeomAttr     Type
hi def link robrayIsa          Type
hi def link robrayShape        Constant
hi def link robrayJointType    Constant
hi def link robrayFrameName    Function
hi def link robrayFrameRef     Function
hi def link robrayAllowName    Function
hi def link robrayClassName    Tag
hi def link robrayDefName      Identifier
hi def link robrayOperator     Operator

let b:current_syntax = 'robray'

let &cpo = s:cpo_save
unlet s:cpo_save
