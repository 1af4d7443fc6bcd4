import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Creating a project takes exactly a name. */
export class ProjectNameDto {
  @ApiProperty({ example: 'Web shop', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;
}
