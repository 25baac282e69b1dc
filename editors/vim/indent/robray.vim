" Vim indent file for robray scene files
" Language:    robray (amino aarxc / robrayc)
"
" One 'shiftwidth' per open `{`, `[` or `(`; a line starting with closers is dedented.  Braces
" inside strings and comments do not count.  Lines inside a /* */ comment keep their indent
" (a leading `*` is aligned under the opening `/*` plus one).

if exists('b:did_indent')
  finish
endif
let b:did_indent = 1

setlocal indentexpr=GetRobrayIndent(v:lnum)
setlocal indentkeys=0{,0},0],0),!^F,o,O,e,0*
setlocal nolisp nosmartindent nocindent autoindent

let b:undo_indent = 'setlocal indentexpr< indentkeys< lisp< smartindent< cindent< autoindent<'

if exists('*GetRobrayIndent')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

" Is (lnum, col) inside a comment or a string, according to the syntax items?
function! s:InCommentOrString(lnum, col) abort
  return synIDattr(synID(a:lnum, a:col, 0), 'name') =~# 'Comment\|String\|Path'
endfunction

" Inside a block comment that started on an earlier line?
function! s:InBlockComment(lnum) abort
  if !exists('b:current_syntax')
    return 0
  endif
  let col = match(getline(a:lnum), '\S') + 1
  if col <= 0
    return 0
  endif
  let line = getline(a:lnum)
  if strpart(line, col - 1, 2) ==# '/*'
    return 0
  endif
  return synIDattr(synID(a:lnum, col, 0), 'name') ==# 'robrayBlockComment'
endfunction

" The line with strings and comments removed (by pattern, so it works without syntax too).
function! s:Code(lnum) abort
  let line = getline(a:lnum)
  let line = substitute(line, '"[^"]*"', '""', 'g')
  let line = substitute(line, '/\*.\{-}\*/', '', 'g')
  let line = substitute(line, '\%(//\|#\).*$', '', '')
  let line = substitute(line, '/\*.*$', '', '')
  if exists('b:current_syntax') && s:InBlockComment(a:lnum)
    " The line ends a block comment: only what follows `*/` is code.
    let end = matchend(line, '\*/')
    let line = end < 0 ? '' : strpart(line, end)
  endif
  return line
endfunction

function! s:Count(text, pat) abort
  return len(split(a:text, a:pat, 1)) - 1
endfunction

function! GetRobrayIndent(lnum) abort
  let line = getline(a:lnum)
  if s:InBlockComment(a:lnum)
    " Find the line that opened the comment and align under it.
    let start = a:lnum - 1
    while start > 1 && getline(start) !~# '/\*'
      let start -= 1
    endwhile
    return line =~# '^\s*\*' ? indent(start) + 1 : -1
  endif

  " Previous line holding code (skip blank and comment-only lines).
  let prev = prevnonblank(a:lnum - 1)
  while prev > 0 && (s:Code(prev) =~# '^\s*$')
    let prev = prevnonblank(prev - 1)
  endwhile
  if prev == 0
    return 0
  endif

  let code = s:Code(prev)
  " Closers at the start of the previous line were already dedented on that line.
  let rest = substitute(code, '^\%(\s*[\]})]\)*', '', '')
  let ind = indent(prev)
  let ind += shiftwidth() * (s:Count(rest, '[[{(]') - s:Count(rest, '[\]})]'))
  " A line starting with closers goes back one level per closer.
  let lead = matchstr(s:Code(a:lnum), '^\%(\s*[\]})]\)\+')
  let ind -= shiftwidth() * s:Count(lead, '[\]})]')
  return max([ind, 0])
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
