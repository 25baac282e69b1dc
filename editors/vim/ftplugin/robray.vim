" Vim filetype plugin for robray scene files
" Language:    robray (amino aarxc / robrayc)

if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

let s:cpo_save = &cpo
set cpo&vim

" Three comment styles; `gc`-style plugins and `:h commentstring` use the first.
setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://,:#
setlocal formatoptions-=t formatoptions+=croql
" Hyphens belong to identifiers (`upper-link`): `w`, `*`, `ciw` and completion see one name.
setlocal iskeyword+=-
" `gf`, `[i`, `[d` and include-completion follow `include "file"` and `def NAME`.
setlocal include=^\\s*include\\s\\+\"\\zs[^\"]*
setlocal define=^\\s*def\\s\\+
setlocal suffixesadd=.robray,.curly
if exists('$ROBRAY_PATH')
  " Include search path, as robrayc searches it after the including file's directory.
  let &l:path = &g:path . ',' . join(map(split($ROBRAY_PATH, ':'), 'fnameescape(v:val)'), ',')
endif

" The corpus style: 4 spaces per level, never tabs (Vim's defaults re-indent with 8-wide tabs).
setlocal shiftwidth=4 softtabstop=4 expandtab

let b:undo_ftplugin = 'setlocal commentstring< comments< formatoptions< iskeyword< include<'
      \ . ' define< suffixesadd< path< shiftwidth< softtabstop< expandtab<'

" `:make` runs robrayc on the file (see compiler/robrayc.vim); opt out with
" `let g:robray_no_compiler = 1`.
if !get(g:, 'robray_no_compiler', 0) && !exists('b:current_compiler')
  compiler robrayc
  let b:undo_ftplugin .= ' | setlocal makeprg< errorformat< | unlet! b:current_compiler'
endif

let &cpo = s:cpo_save
unlet s:cpo_save
